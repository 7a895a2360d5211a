// Package memnet is an in-memory network for a web served in the same
// process: a net.Listener whose connections are net.Pipe pairs, and the
// dial function that reaches it.
//
// It exists for testing/synctest. Inside a synctest bubble time moves only
// when every goroutine of the bubble is blocked on something another of
// them can end; a goroutine reading a real socket is not, so a crawler and
// a simweb talking over loopback TCP would keep the bubble's clock still.
// Over memnet every read and write is a channel operation within the
// bubble, and a crawl of minutes of politeness delays runs in the time its
// CPU work takes, with the same outcome at any machine speed.
package memnet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
)

// Listener accepts the connections its Dial makes. Create it with Listen.
type Listener struct {
	addr   *net.TCPAddr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

// Listen returns a listener that answers dials of address, a numeric
// ip:port such as "127.0.0.1:80". Nothing is bound: the address only names
// the listener, so that URLs, resolve rules and WARC records look as they
// would over TCP.
func Listen(address string) (*Listener, error) {
	a, err := net.ResolveTCPAddr("tcp", address)
	if err != nil || a.IP == nil {
		return nil, fmt.Errorf("memnet: listen %q: want a numeric ip:port", address)
	}
	return &Listener{addr: a, conns: make(chan net.Conn), closed: make(chan struct{})}, nil
}

// Serve serves h over a new listener of address, as Listen's, until stop
// is called; a crawler reaches it through the listener's Dial.
func Serve(address string, h http.Handler) (l *Listener, stop func(), err error) {
	if l, err = Listen(address); err != nil {
		return nil, nil, err
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	return l, func() { srv.Close() }, nil
}

// Accept waits for the next connection a Dial makes, or for Close.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

// Close stops the listener: Accept returns net.ErrClosed and dials are
// refused. Connections made before stay open.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

// Addr returns the address the listener answers for.
func (l *Listener) Addr() net.Addr { return l.addr }

// clientAddr is the address the server sees its clients dial from.
var clientAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 49152}

// Dial connects to the listener, as a net.Dialer's DialContext would to a
// TCP address: it blocks until the listener accepts, and fails if the
// address is not the listener's, if the listener is closed or if ctx ends.
func (l *Listener) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	if address != l.addr.String() {
		return nil, &net.OpError{Op: "dial", Net: network, Err: fmt.Errorf("memnet: no listener on %s", address)}
	}
	client, server := net.Pipe()
	var reset atomic.Bool
	select {
	case l.conns <- &conn{Conn: server, local: l.addr, remote: clientAddr, reset: &reset}:
		return &conn{Conn: client, local: clientAddr, remote: l.addr, reset: &reset}, nil
	case <-l.closed:
		return nil, &net.OpError{Op: "dial", Net: network, Err: net.ErrClosed}
	case <-ctx.Done():
		return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
	}
}

// conn is one end of a pipe with the addresses a TCP connection would
// report (a pipe reports "pipe" for both), and TCP's abortive close.
type conn struct {
	net.Conn
	local, remote net.Addr
	// reset is shared by the two ends: set when one end closed with
	// SetLinger(0), so that the other sees a reset, not an end of stream.
	reset *atomic.Bool
	abort bool
}

func (c *conn) LocalAddr() net.Addr  { return c.local }
func (c *conn) RemoteAddr() net.Addr { return c.remote }

// SetLinger(0) makes Close abortive, as on a *net.TCPConn: the other end's
// reads and writes then fail with ECONNRESET, "connection reset by peer".
// Other values restore the ordinary close.
func (c *conn) SetLinger(sec int) error {
	c.abort = sec == 0
	return nil
}

func (c *conn) Close() error {
	if c.abort {
		c.reset.Store(true)
	}
	return c.Conn.Close()
}

func (c *conn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	return n, c.peerReset("read", err)
}

func (c *conn) Write(b []byte) (int, error) {
	n, err := c.Conn.Write(b)
	return n, c.peerReset("write", err)
}

// peerReset turns the error a pipe gives when its other end closed into
// the one TCP gives when that close was abortive.
func (c *conn) peerReset(op string, err error) error {
	if err == nil || !c.reset.Load() || c.abort || !(err == io.EOF || errors.Is(err, io.ErrClosedPipe)) {
		return err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: c.local, Addr: c.remote,
		Err: os.NewSyscallError(op, syscall.ECONNRESET)}
}
