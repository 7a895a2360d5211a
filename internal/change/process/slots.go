package process

import "math"

// calendarSeconds are the calendar periods on which a quasi-deterministic
// page may be updated: it publishes at a fixed time of the hour, day,
// week, 30 days or 365 days.
var calendarSeconds = [...]int64{3600, 86400, 7 * 86400, 30 * 86400, 365 * 86400}

// Calendar returns the slot period and the probability k per slot of the
// quasi-deterministic page whose mean change interval is mean: the longest
// calendar period (hour, day, week, 30 or 365 days) not above the mean, or
// the mean itself when it is under an hour, with k = period/mean so that
// the page's mean rate is 1/mean. second is one second in mean's unit: 1
// for float64 seconds, time.Second for a time.Duration. The periods are
// whole seconds, so either unit gives them exactly.
func Calendar[T ~int64 | ~float64](mean, second T) (period T, k float64) {
	for _, c := range calendarSeconds {
		if p := T(c) * second; p <= mean {
			period = p
		}
	}
	if period == 0 {
		period = mean
	}
	return period, math.Min(1, float64(period)/float64(mean))
}

// The potential update times of a quasi-deterministic page form the grid
// phase + j·period. The simulator keeps time in float64 seconds and only
// moves forwards; the synthetic web keeps it in int64 nanoseconds, where
// its walk over a page's changes runs backwards and forwards and every sum
// must be exact. Hence one function per clock.

// SlotAtOrBefore returns the last potential update phase + j·period at or
// before t, in float64 time.
func SlotAtOrBefore(t, period, phase float64) float64 {
	return phase + math.Floor((t-phase)/period)*period
}

// SlotAtOrBeforeNs returns the last potential update phase + j·period at
// or before t, in integer time, exactly.
func SlotAtOrBeforeNs(t, period, phase int64) int64 {
	r := (t - phase) % period
	if r < 0 {
		r += period
	}
	return t - r
}
