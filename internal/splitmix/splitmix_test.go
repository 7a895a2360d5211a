package splitmix

import "testing"

// TestMixReference checks the first outputs of splitmix64 seeded with 0
// against Vigna's reference implementation (splitmix64.c), whose next()
// adds Gamma to the state and returns the mix of the sum.
func TestMixReference(t *testing.T) {
	want := []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f}
	for n, w := range want {
		if got := Mix(uint64(n+1) * Gamma); got != w {
			t.Errorf("output %d: %#x, want %#x", n, got, w)
		}
	}
}

// TestFloats checks the ranges of Unit and Open at the extremes.
func TestFloats(t *testing.T) {
	if Unit(0) != 0 || Unit(^uint64(0)) >= 1 {
		t.Errorf("Unit: %v, %v; want 0 and < 1", Unit(0), Unit(^uint64(0)))
	}
	if Open(0) <= 0 || Open(^uint64(0)) != 1 {
		t.Errorf("Open: %v, %v; want > 0 and 1", Open(0), Open(^uint64(0)))
	}
}

// A Stream is splitmix64 itself: seeded with 0 it gives the reference
// outputs above, and each output is At of its index; IntN stays in range
// and hits every value of a small range.
func TestStream(t *testing.T) {
	r := NewStream(0)
	for n, w := range []uint64{0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f} {
		if got := r.Uint64(); got != w {
			t.Errorf("output %d: %#x, want %#x", n+1, got, w)
		}
	}
	r = NewStream(42)
	for n := uint64(1); n <= 100; n++ {
		if got, want := r.Uint64(), At(42, n); got != want {
			t.Fatalf("output %d: %#x, At %#x", n, got, want)
		}
	}
	var seen [7]int
	for range 7000 {
		seen[r.IntN(7)]++
	}
	for v, c := range seen {
		if c < 800 || c > 1200 { // 1,000 expected, standard deviation 30
			t.Errorf("IntN(7) gave %d %d times in 7,000", v, c)
		}
	}
}
