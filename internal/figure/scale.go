package figure

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// A log axis is drawn as the linear axis of log10 of the values, its
// ticks labelled with the values, rather than with gonum's LogScale:
// gonum (v0.17, axis.go GlyphBoxes) reserves room for an axis's label
// as if it sat at the arithmetic middle of the range, which on a log
// axis lies near its end, so a long label under a log axis squeezed the
// chart into the left of the figure.

// at is where the value v lies on the axis as gonum draws it.
func (a Axis) at(v float64) float64 {
	if a.Log {
		return math.Log10(v)
	}
	return v
}

// ticks marks exactly the axis's Ticks, labelled with their TickLabels if
// there is one for each, else with their shortest decimal form.
func (a Axis) ticks() plot.ConstantTicks {
	t := make([]plot.Tick, len(a.Ticks))
	for i, v := range a.Ticks {
		t[i] = plot.Tick{Value: a.at(v), Label: strconv.FormatFloat(v, 'g', -1, 64)}
		if len(a.TickLabels) == len(a.Ticks) {
			t[i].Label = a.TickLabels[i]
		}
	}
	return t
}

// logTicks marks the powers of ten on an axis of log10 values and their
// multiples 2…9 between them. It labels the powers, and on an axis that
// spans few of them the multiples too: 2 and 5 under a thousandfold,
// every one under thirtyfold.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	labelled := func(m float64) bool { return m == 1 }
	switch {
	case hi-lo < 1.5:
		labelled = func(float64) bool { return true }
	case hi-lo < 3:
		labelled = func(m float64) bool { return m == 1 || m == 2 || m == 5 }
	}
	var t []plot.Tick
	for k := math.Floor(lo); k <= math.Ceil(hi); k++ {
		for m := 1.0; m < 10; m++ {
			// Within rounding of the ends: log10(0.5) is not -1 + log10(5).
			v := k + math.Log10(m)
			if v < lo-1e-9 || v > hi+1e-9 {
				continue
			}
			tick := plot.Tick{Value: v}
			if labelled(m) {
				tick.Label = power(k, m)
			}
			t = append(t, tick)
		}
	}
	return t
}

// linearTicks labels five to ten values at a round step (1, 2 or 5
// times a power of ten) on a linear axis, with unlabelled ticks between.
type linearTicks struct{}

func (linearTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/5)))
	step, minors := mag, 5.0
	switch r := (hi - lo) / mag; { // 5 ≤ r < 50
	case r >= 20:
		step, minors = 5*mag, 5
	case r >= 10:
		step, minors = 2*mag, 4
	}
	decimals := max(0, -int(math.Floor(math.Log10(step))))
	var t []plot.Tick
	minor := step / minors
	for i := math.Ceil(lo / minor); i*minor <= hi; i++ {
		v := i * minor
		if v == 0 {
			v = 0 // not -0
		}
		tick := plot.Tick{Value: v}
		if math.Mod(i, minors) == 0 {
			tick.Label = strconv.FormatFloat(v, 'f', decimals, 64)
		}
		t = append(t, tick)
	}
	return t
}

// power is m·10^k written out from 0.0001 to a million, else in
// exponent form.
func power(k, m float64) string {
	v := m * math.Pow(10, k)
	if k < -4 || k > 6 {
		return strconv.FormatFloat(v, 'g', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', int(max(0, -k)), 64)
}

// on is the line with its points at their places on the axes x and y.
func (l Line) on(x, y Axis) Line {
	pts := make([]Point, len(l.Points))
	for i, pt := range l.Points {
		pts[i] = Point{X: x.at(pt.X), Y: y.at(pt.Y)}
	}
	l.Points = pts
	return l
}

// on is the series with its bars at their places on the axes x and y.
func (b Bars) on(x, y Axis) Bars {
	along, grow := x, y
	if b.Horizontal {
		along, grow = y, x
	}
	bars := make([]Bar, len(b.Bars))
	for i, bar := range b.Bars {
		bars[i] = Bar{From: along.at(bar.From), To: along.at(bar.To), Value: grow.at(bar.Value)}
	}
	b.Bars = bars
	return b
}
