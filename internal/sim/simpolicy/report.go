package simpolicy

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/freshcrawl/freshcrawl/internal/policy"
)

// Objective names what the comparison's optimal allocator optimises.
func (c Comparison) Objective() string {
	switch c.Allocator.(type) {
	case policy.OptimalAge:
		return "age"
	case policy.OptimalHarmonic:
		return "harmonic"
	}
	return "freshness"
}

// jsonStat is a Stat in WriteJSON's output.
type jsonStat struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

type jsonSeed struct {
	Seed      uint64  `json:"seed"`
	Freshness float64 `json:"freshness"`
	AgeDays   float64 `json:"age_days"`
	Harmonic  float64 `json:"harmonic"`
	Fetches   int64   `json:"fetches"`
	Changes   int64   `json:"changes"`
	ToGivenUp float64 `json:"to_given_up"`
}

type jsonPolicy struct {
	Policy       string     `json:"policy"`
	Freshness    jsonStat   `json:"freshness"`
	OfOracle     jsonStat   `json:"of_oracle"`
	AgeDays      jsonStat   `json:"age_days"`
	Harmonic     jsonStat   `json:"harmonic"`
	Fetches      jsonStat   `json:"fetches"`
	BudgetUsed   jsonStat   `json:"budget_used"`
	Changes      jsonStat   `json:"changes"`
	DelaySeconds jsonStat   `json:"delay_seconds"`
	ToGivenUp    jsonStat   `json:"to_given_up"`
	WallSeconds  float64    `json:"wall_seconds"`
	Seeds        []jsonSeed `json:"seeds"`
}

type jsonSimulation struct {
	Pages        int          `json:"pages"`
	Model        string       `json:"model"`
	Objective    string       `json:"objective"`
	BudgetPerDay float64      `json:"budget_per_day"`
	Days         float64      `json:"days"`
	WarmUpDays   float64      `json:"warmup_days"`
	KnownRates   bool         `json:"known_rates"`
	LastModShare float64      `json:"lastmod_share"`
	MaxInterval  float64      `json:"max_interval_days"`
	ReplanHours  float64      `json:"replan_hours"`
	PriorWeight  float64      `json:"prior_weight"`
	WallSeconds  float64      `json:"wall_seconds"`
	Policies     []jsonPolicy `json:"policies"`
}

// WriteJSON writes the report of comparison c as one indented JSON
// object: the comparison's settings, its defaults filled in, and per
// policy the statistics (ages in days) and each seed's result.
func (r *Report) WriteJSON(w io.Writer, c Comparison) error {
	js := func(s Stat, scale float64) jsonStat { return jsonStat{s.Mean / scale, s.SD / scale} }
	online := policy.OnlineConfig{MaxInterval: c.MaxInterval, PriorWeight: c.PriorWeight}.WithDefaults()
	out := jsonSimulation{Pages: c.Pages, Model: c.Model.String(), Objective: c.Objective(),
		BudgetPerDay: c.Budget * day, Days: c.Days, WarmUpDays: c.WarmUp, KnownRates: c.KnownRates,
		LastModShare: c.LastModified, MaxInterval: online.MaxInterval / day, ReplanHours: c.ReplanEvery / 3600,
		PriorWeight: online.PriorWeight, WallSeconds: r.Wall.Seconds()}
	for _, row := range r.Rows {
		p := jsonPolicy{Policy: row.Policy, Freshness: js(row.Freshness, 1), OfOracle: js(row.OfOracle, 1),
			AgeDays: js(row.Age, day), Harmonic: js(row.Harmonic, 1), Fetches: js(row.Fetches, 1),
			BudgetUsed: js(row.BudgetUsed, 1), Changes: js(row.Changes, 1),
			DelaySeconds: js(row.Delay, 1), ToGivenUp: js(row.ToGivenUp, 1), WallSeconds: row.Wall.Seconds()}
		for i, res := range row.PerSeed {
			p.Seeds = append(p.Seeds, jsonSeed{Seed: c.Seeds[i], Freshness: res.Freshness, AgeDays: res.Age / day,
				Harmonic: res.Harmonic, Fetches: res.Fetches, Changes: res.ChangesDetected, ToGivenUp: row.ToGivenUpPerSeed[i]})
		}
		out.Policies = append(out.Policies, p)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// WriteSeriesCSV writes day_start, day_end, policy, freshness, age_days:
// one row per policy and day, averaged over the seeds.
func (r *Report) WriteSeriesCSV(w io.Writer) error {
	if _, err := fmt.Fprintln(w, "day_start,day_end,policy,freshness,age_days"); err != nil {
		return err
	}
	for _, row := range r.Rows {
		for _, p := range row.Series {
			if _, err := fmt.Fprintf(w, "%g,%g,%s,%.6f,%.6f\n", p.Start/day, p.End/day,
				row.Policy, p.Freshness, p.Age/day); err != nil {
				return err
			}
		}
	}
	return nil
}
