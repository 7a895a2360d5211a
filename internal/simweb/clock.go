package simweb

import (
	"sync"
	"time"
)

// Clock tells simulated time, as a duration since the web's epoch.
type Clock interface {
	Now() time.Duration
}

// WallClock runs simulated time at a fixed multiple of wall time, starting
// at zero when it is made.
type WallClock struct {
	start time.Time
	speed float64
}

// NewWallClock returns a clock that advances speed simulated seconds per
// wall second (3600: one simulated hour per second).
func NewWallClock(speed float64) *WallClock {
	return &WallClock{start: time.Now(), speed: speed}
}

// Now returns the simulated time since the clock was made.
func (c *WallClock) Now() time.Duration {
	return time.Duration(float64(time.Since(c.start)) * c.speed)
}

// Speed returns simulated seconds per wall second.
func (c *WallClock) Speed() float64 { return c.speed }

// ManualClock is a clock that moves only when told to; tests and the
// simulator use it.
type ManualClock struct {
	mu sync.Mutex
	t  time.Duration
}

// Now returns the clock's current time.
func (c *ManualClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *ManualClock) Set(t time.Duration) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t += d
	c.mu.Unlock()
}
