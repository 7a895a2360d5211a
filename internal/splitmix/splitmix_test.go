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
