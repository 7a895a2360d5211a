package evolution

import (
	"math"
	"testing"
	"time"
)

// The per-domain shares must satisfy every bound dissertation Fig. 4.2(b)
// prints and, weighted by the Table 4.1 site mix, reproduce the all-domain
// bars (23 % and 15 % printed in §4.3 and §5.7; 16/16/30 the Table 5.7
// reconstruction of spec §4.6).
func TestDomainSharesMatchFig42(t *testing.T) {
	total := 0.0
	for _, n := range DomainSites {
		total += n
	}
	var all [5]float64
	for d, row := range DomainShares {
		sum := 0.0
		for b, s := range row {
			sum += s
			all[b] += s * DomainSites[d] / total
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%v shares sum to %g, want 1", Domain(d), sum)
		}
	}
	for b := range all {
		if math.Abs(all[b]-PrintedShares[b]) > 0.01 {
			t.Errorf("bin %q: weighted share %.3f, printed %.2f (tolerance 0.01)", Bins[b].Label, all[b], PrintedShares[b])
		}
	}
	if DomainShares[Com][0] <= 0.40 {
		t.Errorf("com daily share %.2f, Fig. 4.2(b) prints more than 40%%", DomainShares[Com][0])
	}
	for _, d := range []Domain{Edu, NetOrg, Gov} {
		if DomainShares[d][0] >= 0.10 {
			t.Errorf("%v daily share %.2f, Fig. 4.2(b) prints fewer than 10%%", d, DomainShares[d][0])
		}
	}
	for _, d := range []Domain{Edu, Gov} {
		if DomainShares[d][4] <= 0.50 {
			t.Errorf("%v no-change share %.2f, Fig. 4.2(b) prints more than 50%%", d, DomainShares[d][4])
		}
	}
}

// Exponential lifetimes with the chosen means reproduce the printed
// lifespan figures (dissertation §4.4, Fig. 4.4): about 19 % between a
// week and a month, over 70 % longer than a month, over 50 % of edu and
// gov pages longer than 4 months, com the shortest-lived. Closed form:
// P(a < L ≤ b) = e^{−a/m} − e^{−b/m}.
func TestLifespansMatchFig44(t *testing.T) {
	total := 0.0
	for _, n := range DomainSites {
		total += n
	}
	surv := func(d Domain, x time.Duration) float64 { return math.Exp(-float64(x) / float64(MeanLifespan[d])) }
	weekMonth, overMonth := 0.0, 0.0
	for d := Domain(0); d < NumDomains; d++ {
		f := DomainSites[d] / total
		weekMonth += f * (surv(d, 7*day) - surv(d, 30*day))
		overMonth += f * surv(d, 30*day)
		if MeanLifespan[d] < MeanLifespan[Com] {
			t.Errorf("%v pages live shorter than com pages; §4.4 says com is the shortest-lived", d)
		}
	}
	if math.Abs(weekMonth-0.19) > 0.02 {
		t.Errorf("share living 1 week–1 month = %.3f, printed about 0.19 (tolerance 0.02)", weekMonth)
	}
	if overMonth <= 0.70 {
		t.Errorf("share living over a month = %.3f, printed over 0.70", overMonth)
	}
	for _, d := range []Domain{Edu, Gov} {
		if s := surv(d, 120*day); s <= 0.5 {
			t.Errorf("%v share living over 4 months = %.3f, printed over 0.5", d, s)
		}
	}
}

// DrawDomain gives each class its Table 4.1 share of [0, 1): the
// boundaries are at the cumulative shares 132/270, 210/270 and 240/270.
func TestDrawDomain(t *testing.T) {
	tests := []struct {
		u    float64
		want Domain
	}{
		{0, Com}, {132.0/270 - 1e-9, Com}, {132.0/270 + 1e-9, Edu}, {210.0/270 - 1e-9, Edu},
		{210.0/270 + 1e-9, NetOrg}, {240.0/270 + 1e-9, Gov}, {math.Nextafter(1, 0), Gov},
	}
	for _, tt := range tests {
		if got := DrawDomain(tt.u); got != tt.want {
			t.Errorf("DrawDomain(%g) = %v, want %v", tt.u, got, tt.want)
		}
	}
}

// Bar picks bin b for u in [Σ_{<b} shares, Σ_{≤b} shares); LogUniform puts
// u = 0, 1/2 and 1 at lo, the geometric mean and hi; DrawInterval of a
// domain lands in the bar its shares pick, and BinOf finds that bar again.
func TestIntervalDraws(t *testing.T) {
	shares := PrintedShares
	for _, tt := range []struct {
		u    float64
		want int
	}{{0, 0}, {0.2299, 0}, {0.2301, 1}, {0.3799, 1}, {0.3801, 2}, {0.6999, 3}, {0.7001, 4}, {0.9999, 4}} {
		if got := Bar(shares, tt.u); got != tt.want {
			t.Errorf("Bar(%g) = %d, want %d", tt.u, got, tt.want)
		}
	}
	for _, tt := range []struct{ u, want float64 }{{0, 2}, {0.5, 4}, {1, 8}} {
		if got := LogUniform(2, 8, tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("LogUniform(2, 8, %g) = %g, want %g", tt.u, got, tt.want)
		}
	}
	for d := Domain(0); d < NumDomains; d++ {
		for _, u1 := range []float64{0.01, 0.3, 0.5, 0.75, 0.99} {
			b := Bar(DomainShares[d], u1)
			for _, u2 := range []float64{0.001, 0.5, 0.999} {
				iv := DrawInterval(d, u1, u2)
				if iv < Bins[b].Lo || iv > Bins[b].Hi {
					t.Errorf("%v: DrawInterval(%g, %g) = %v, outside bar %q", d, u1, u2, iv, Bins[b].Label)
				}
				if got := BinOf(iv); got != b {
					t.Errorf("%v: BinOf(%v) = %d, drawn from bar %d", d, iv, got, b)
				}
			}
		}
	}
	if BinOf(time.Hour) != 0 || BinOf(3*day) != 1 || BinOf(10*day) != 2 || BinOf(60*day) != 3 || BinOf(400*day) != 4 {
		t.Error("BinOf misplaces the bars' middles")
	}
}
