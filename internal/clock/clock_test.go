package clock

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

func TestSleep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if !Sleep(context.Background(), time.Minute) || time.Since(start) != time.Minute {
			t.Errorf("a minute's sleep ended after %v", time.Since(start))
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start = time.Now()
		if Sleep(ctx, time.Hour) || time.Since(start) != time.Second {
			t.Errorf("a sleep cut short by its context after 1s reported the whole wait, or ended after %v", time.Since(start))
		}
		if Sleep(ctx, 0) || Sleep(ctx, -time.Second) {
			t.Error("no wait on a done context reported it live")
		}
		if !Sleep(context.Background(), 0) {
			t.Error("no wait on a live context reported it done")
		}
	})
}

func TestLaterEarliest(t *testing.T) {
	a, b := time.Unix(10, 0), time.Unix(20, 0)
	if !Later(a, b).Equal(b) || !Later(b, a).Equal(b) {
		t.Error("Later")
	}
	if !Earliest(a, b).Equal(a) || !Earliest(b, a).Equal(a) || !Earliest(time.Time{}, b).Equal(b) {
		t.Error("Earliest")
	}
}
