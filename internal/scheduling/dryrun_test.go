package scheduling

import (
	"reflect"
	"strings"
	"testing"
)

// Kratix never schedules ordinary placements to a destination labelled kratix.io/dry-run=true,
// whatever the selectors and strict_match_labels say; any other value leaves it ordinary.
func TestDryRunDestinations(t *testing.T) {
	dryRun := map[string]string{DryRunLabel: "true", "env": "dev"}
	tests := []struct {
		name     string
		selector Selector
		labels   map[string]string
		strict   bool
		want     bool
		reason   string
	}{
		{"no selectors", Selector{}, dryRun, false, false, dryRunReason},
		{"no selectors, strict", Selector{}, dryRun, true, false, dryRunReason},
		{"matching selector", sel("env", "dev"), dryRun, false, false, dryRunReason},
		{"matching selector, strict", sel("env", "dev"), dryRun, true, false, dryRunReason},
		{"selector on the dry-run label itself", sel(DryRunLabel, "true"), dryRun, false, false, dryRunReason},
		{"matching expression", Selector{MatchExpressions: []Requirement{{"env", OpExists, nil}}}, dryRun, false, false, dryRunReason},
		{"not matching selector", sel("env", "prod"), dryRun, false, false, dryRunReason},
		{"only the dry-run label", Selector{}, map[string]string{DryRunLabel: "true"}, false, false, dryRunReason},
		{"dry-run=false, no selectors", Selector{}, map[string]string{DryRunLabel: "false"}, false, true, "no selectors"},
		{"dry-run=false, matching selector", sel("env", "dev"), map[string]string{DryRunLabel: "false", "env": "dev"}, false, true, "matches env=dev"},
		{"dry-run=false, strict, no selectors", Selector{}, map[string]string{DryRunLabel: "false"}, true, false, "strict_match_labels: no selectors given"},
		{"dry-run=True is not Kratix's value", Selector{}, map[string]string{DryRunLabel: "True"}, false, true, "no selectors"},
		{"dry-run empty", Selector{}, map[string]string{DryRunLabel: ""}, false, true, "no selectors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pool := []Destination{{Name: "d", Labels: tt.labels, StrictMatchLabels: tt.strict}}
			d := Schedule(tt.selector, pool)[0]
			if d.Selected != tt.want || !strings.HasPrefix(d.Reason(), tt.reason) {
				t.Errorf("Schedule: got %v (%q), want %v (%q)", d.Selected, d.Reason(), tt.want, tt.reason)
			}
			// match = "any" with the same selector as its only entry decides the same.
			a := ScheduleAny([]Selector{tt.selector}, pool)[0]
			if a.Selected != tt.want || tt.reason == dryRunReason && a.Reason() != dryRunReason {
				t.Errorf("ScheduleAny: got %v (%q), want %v (%q)", a.Selected, a.Reason(), tt.want, tt.reason)
			}
		})
	}
}

func TestDryRunReason(t *testing.T) {
	want := "labelled kratix.io/dry-run=true: dry-run destinations get no placements"
	if dryRunReason != want {
		t.Errorf("reason = %q, want %q", dryRunReason, want)
	}
}

// In a pool, the dry-run destination is the only one left out, under every way of scheduling.
func TestDryRunInAPool(t *testing.T) {
	pool := []Destination{
		{Name: "dev", Labels: map[string]string{"env": "dev"}},
		{Name: "rehearsal", Labels: map[string]string{"env": "dev", DryRunLabel: "true"}},
		{Name: "prod", Labels: map[string]string{"env": "prod", DryRunLabel: "false"}},
	}
	tests := []struct {
		name      string
		decisions []Decision
		want      []string
	}{
		{"Schedule, no selectors", Schedule(Selector{}, pool), []string{"dev", "prod"}},
		{"Schedule, env=dev", Schedule(sel("env", "dev"), pool), []string{"dev"}},
		{"ScheduleAny, no entries", ScheduleAny(nil, pool), []string{"dev", "prod"}},
		{"ScheduleAny, env=dev or env=prod", ScheduleAny([]Selector{sel("env", "dev"), sel("env", "prod")}, pool), []string{"dev", "prod"}},
		{"ScheduleAny, an empty entry", ScheduleAny([]Selector{{}}, pool), []string{"dev", "prod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Selected(tt.decisions)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("selected %v, want %v", got, tt.want)
			}
			if r := tt.decisions[1]; r.Selected || r.Reason() != dryRunReason {
				t.Errorf("rehearsal: %v (%q), want refused as dry-run", r.Selected, r.Reason())
			}
		})
	}
}

// Matches answers whether labels satisfy selectors; candidacy rules (strictness, dry-run) are
// Schedule's, so Matches still says yes for a dry-run destination's labels.
func TestMatchesIgnoresDryRun(t *testing.T) {
	lbls := map[string]string{"env": "dev", DryRunLabel: "true"}
	if !Matches(sel("env", "dev"), lbls) {
		t.Error("Matches refused labels that satisfy the selector")
	}
	if !IsDryRun(lbls) || IsDryRun(map[string]string{DryRunLabel: "false"}) || IsDryRun(nil) {
		t.Error("IsDryRun disagrees with Kratix's exact comparison with \"true\"")
	}
}
