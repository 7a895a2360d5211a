package memnet

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"testing/synctest"
	"time"
)

// An HTTP server and client talk over the listener inside a synctest
// bubble, and a handler's 10-minute sleep takes no time: the bubble's
// clock moved because every goroutine was blocked within it.
func TestHTTPOverPipes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l, err := Listen("127.0.0.1:8080")
		if err != nil {
			t.Fatal(err)
		}
		var remote string
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			remote = r.RemoteAddr
			time.Sleep(10 * time.Minute)
			io.WriteString(w, "hello "+r.URL.Path)
		})}
		go srv.Serve(l)
		defer srv.Close()
		tr := &http.Transport{DialContext: l.Dial}
		defer tr.CloseIdleConnections()
		start := time.Now()
		resp, err := (&http.Client{Transport: tr}).Get("http://127.0.0.1:8080/x")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if string(body) != "hello /x" {
			t.Errorf("body %q, want %q", body, "hello /x")
		}
		if d := time.Since(start); d != 10*time.Minute {
			t.Errorf("the request took %v of the bubble's time, want exactly the handler's 10m", d)
		}
		if remote != clientAddr.String() {
			t.Errorf("server saw the client at %q, want %q", remote, clientAddr)
		}
	})
}

// An abortive close (SetLinger(0), as simweb resets a connection) shows at
// the other end as a reset, as over TCP; an ordinary close as the end of
// the stream.
func TestReset(t *testing.T) {
	for _, abort := range []bool{false, true} {
		l, err := Listen("127.0.0.1:8080")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			c, err := l.Accept()
			if err != nil {
				t.Error(err)
				return
			}
			if abort {
				c.(interface{ SetLinger(int) error }).SetLinger(0)
			}
			c.Close()
		}()
		c, err := l.Dial(context.Background(), "tcp", "127.0.0.1:8080")
		if err != nil {
			t.Fatal(err)
		}
		<-done
		_, err = c.Read(make([]byte, 1))
		if got := errors.Is(err, syscall.ECONNRESET); got != abort {
			t.Errorf("abortive close %v: read error %v", abort, err)
		}
		if !abort && err != io.EOF {
			t.Errorf("ordinary close: read error %v, want io.EOF", err)
		}
		c.Close()
	}
}

func TestDialRefused(t *testing.T) {
	l, err := Listen("127.0.0.1:8080")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Dial(context.Background(), "tcp", "127.0.0.1:8081"); err == nil {
		t.Error("a dial of another address succeeded")
	}
	l.Close()
	if _, err := l.Dial(context.Background(), "tcp", "127.0.0.1:8080"); !errors.Is(err, net.ErrClosed) {
		t.Errorf("dial after Close: %v, want net.ErrClosed", err)
	}
	if _, err := l.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("Accept after Close: %v, want net.ErrClosed", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	l2, _ := Listen("127.0.0.1:8080")
	if _, err := l2.Dial(ctx, "tcp", "127.0.0.1:8080"); !errors.Is(err, context.Canceled) {
		t.Errorf("dial with a cancelled context: %v, want context.Canceled", err)
	}
}

func TestListenNeedsNumericAddress(t *testing.T) {
	for _, a := range []string{"", "localhost", "127.0.0.1", ":80"} {
		if _, err := Listen(a); err == nil {
			t.Errorf("Listen(%q) succeeded", a)
		}
	}
}

// TestServe answers a request over a listener Serve made, and none after
// stop.
func TestServe(t *testing.T) {
	l, stop, err := Serve("127.0.0.1:80", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, "hello")
	}))
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DialContext: l.Dial}}
	resp, err := client.Get("http://" + l.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "hello" {
		t.Errorf("body %q, want hello", body)
	}
	stop()
	if _, err := client.Get("http://" + l.Addr().String() + "/x"); err == nil {
		t.Error("a request after stop was answered")
	}
}
