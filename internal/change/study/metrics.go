package study

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// Metrics summarise one estimator's estimates λ̂ over the trials of a cell,
// against the true rate λ.
type Metrics struct {
	// Trials is the number of simulated pages.
	Trials int `json:"trials"`
	// NotOK counts the trials where the estimator gave no estimate (or a
	// non-finite one); Bias, BiasSE and RMSE are over the others only, and
	// MedLog and Within2 count them as failures.
	NotOK int `json:"not_ok"`
	// Zero counts the estimates of exactly 0 (no change seen): finite, but
	// infinitely far from λ on the log scale.
	Zero int `json:"zero"`
	// Bias is the relative bias E[λ̂]/λ − 1.
	Bias Number `json:"bias"`
	// BiasSE is the Monte-Carlo standard error of Bias: sd(λ̂)/(λ·√m) over
	// the m OK trials.
	BiasSE Number `json:"bias_se"`
	// RMSE is the relative root-mean-square error √E[(λ̂/λ − 1)²].
	RMSE Number `json:"rmse"`
	// MedLog is the median of |log(λ̂/λ)|, +Inf for zero or missing
	// estimates; 0.1 means a typical estimate is off by a factor e^0.1.
	MedLog Number `json:"median_abs_log"`
	// Within2 is the share of all trials with λ/2 ≤ λ̂ ≤ 2λ.
	Within2 Number `json:"within2"`
}

// summarise returns the metrics of the estimates est (NaN where the
// estimator had none) of a rate lambda. It reorders est.
func summarise(est []float64, lambda float64) Metrics {
	m := Metrics{Trials: len(est)}
	var sum, sumSq, sumErr2 float64
	ok, within := 0, 0
	for i, v := range est {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			m.NotOK++
			est[i] = math.Inf(1)
			continue
		}
		if v == 0 {
			m.Zero++
		}
		q := v / lambda
		ok++
		sum += q
		sumSq += q * q
		sumErr2 += (q - 1) * (q - 1)
		if q >= 0.5 && q <= 2 {
			within++
		}
		est[i] = math.Abs(math.Log(q)) // +Inf for a zero estimate
	}
	m.Bias, m.BiasSE, m.RMSE = Number(math.NaN()), Number(math.NaN()), Number(math.NaN())
	if ok > 0 {
		mean := sum / float64(ok)
		m.Bias = Number(mean - 1)
		m.RMSE = Number(math.Sqrt(sumErr2 / float64(ok)))
		if ok > 1 {
			v := (sumSq - float64(ok)*mean*mean) / float64(ok-1)
			m.BiasSE = Number(math.Sqrt(math.Max(v, 0) / float64(ok)))
		}
	}
	m.MedLog = Number(median(est))
	m.Within2 = Number(float64(within) / float64(max(len(est), 1)))
	return m
}

// median returns the median of x (NaN if empty), sorting x.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	slices.Sort(x)
	h := len(x) / 2
	if len(x)%2 == 1 {
		return x[h]
	}
	if math.IsInf(x[h], 1) {
		return x[h]
	}
	return 0.5 * (x[h-1] + x[h])
}

// Number is a float64 that encodes in JSON as a number when finite and as
// the string "+Inf", "-Inf" or "NaN" otherwise, which JSON cannot hold.
type Number float64

// MarshalJSON implements json.Marshaler.
func (x Number) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return json.Marshal(strconv.FormatFloat(f, 'g', -1, 64))
	}
	return json.Marshal(f)
}

// UnmarshalJSON implements json.Unmarshaler.
func (x *Number) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		f, err := strconv.ParseFloat(s, 64)
		*x = Number(f)
		return err
	}
	var f float64
	err := json.Unmarshal(b, &f)
	*x = Number(f)
	return err
}
