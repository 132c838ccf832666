package scheduling

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
)

func sel(kv ...string) Selector {
	s := Selector{MatchLabels: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		s.MatchLabels[kv[i]] = kv[i+1]
	}
	return s
}

// The strictMatchLabels truth table of Kratix's scheduler (kratix-behaviour.md 1.5).
func TestStrictMatchLabels(t *testing.T) {
	labelled := map[string]string{"env": "dev", "zone": "eu"}
	tests := []struct {
		name     string
		selector Selector
		labels   map[string]string
		strict   bool
		want     bool
		reason   string
	}{
		{"no selector, unlabelled, not strict", Selector{}, nil, false, true, "no selectors"},
		{"no selector, labelled, not strict", Selector{}, labelled, false, true, "no selectors"},
		{"no selector, unlabelled, strict", Selector{}, nil, true, true, "no selectors"},
		{"no selector, labelled, strict", Selector{}, labelled, true, false, "strict_match_labels: no selectors given"},
		{"selector, labelled, strict", sel("env", "dev"), labelled, true, true, "matches env=dev"},
		{"selector, labelled, not strict", sel("env", "dev"), labelled, false, true, "matches env=dev"},
		{"wider selector than labels", sel("env", "dev", "zone", "us"), map[string]string{"env": "dev"}, false, false, "missing label zone=us"},
		{"selector, unlabelled, strict", sel("env", "dev"), nil, true, false, "missing label env=dev"},
		{"selector, unlabelled, not strict", sel("env", "dev"), nil, false, false, "missing label env=dev"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Schedule(tt.selector, []Destination{{Name: "d", Labels: tt.labels, StrictMatchLabels: tt.strict}})[0]
			if d.Selected != tt.want || !strings.Contains(d.Reason(), tt.reason) {
				t.Errorf("got %v (%q), want %v (%q)", d.Selected, d.Reason(), tt.want, tt.reason)
			}
		})
	}
}

func TestMergeAndCombine(t *testing.T) {
	if got := Merge([]Selector{sel("a", "1"), sel("b", "2")}); !reflect.DeepEqual(got.MatchLabels, map[string]string{"a": "1", "b": "2"}) {
		t.Errorf("entries must AND: %v", got.MatchLabels)
	}
	if got := Merge([]Selector{sel("a", "1"), sel("a", "2")}); got.MatchLabels["a"] != "1" {
		t.Errorf("the first entry must win a repeated key: %v", got.MatchLabels)
	}
	exprs := Merge([]Selector{{MatchExpressions: []Requirement{{"x", OpExists, nil}}}, {MatchExpressions: []Requirement{{"y", OpDoesNotExist, nil}}}})
	if len(exprs.MatchExpressions) != 2 {
		t.Errorf("expressions must AND: %v", exprs.MatchExpressions)
	}
	got, conflicts := Combine(sel("env", "dev"), sel("env", "prod", "pvCapacity", "large"))
	if !reflect.DeepEqual(got.MatchLabels, map[string]string{"env": "dev", "pvCapacity": "large"}) {
		t.Errorf("combined = %v", got.MatchLabels)
	}
	if !reflect.DeepEqual(conflicts, []Conflict{{Key: "env", PromiseValue: "dev", RequestValue: "prod"}}) {
		t.Errorf("conflicts = %v", conflicts)
	}
}

func TestExpressions(t *testing.T) {
	pool := []Destination{
		{Name: "a", Labels: map[string]string{"zone": "a", "gpu": "true"}},
		{Name: "c", Labels: map[string]string{"zone": "c"}},
		{Name: "none"},
	}
	tests := []struct {
		req    Requirement
		want   []string
		reason string // of "c"'s decision, when not selected
	}{
		{Requirement{"zone", OpIn, []string{"a", "b"}}, []string{"a"}, "zone in (a,b) but destination has zone=c"},
		{Requirement{"zone", OpNotIn, []string{"a"}}, []string{"c", "none"}, ""}, // NotIn holds without the label, as in Kubernetes
		{Requirement{"gpu", OpExists, nil}, []string{"a"}, "requires label gpu"},
		{Requirement{"gpu", OpDoesNotExist, nil}, []string{"c", "none"}, ""},
	}
	for _, tt := range tests {
		ds := Schedule(Selector{MatchExpressions: []Requirement{tt.req}}, pool)
		if got := Selected(ds); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s selects %v, want %v", tt.req, got, tt.want)
		}
		if tt.reason != "" && ds[1].Reason() != tt.reason {
			t.Errorf("%s: reason for c = %q, want %q", tt.req, ds[1].Reason(), tt.reason)
		}
	}
	ds := Schedule(Selector{MatchExpressions: []Requirement{{"zone", OpIn, []string{"a"}}}}, pool)
	if ds[2].Reason() != "zone in (a) but destination has no label zone" {
		t.Errorf("reason = %q", ds[2].Reason())
	}
	if d := Schedule(sel("pvCapacity", "large"), []Destination{{Name: "w", Labels: map[string]string{"pvCapacity": "small"}}})[0]; d.Reason() != "pvCapacity=large but destination has pvCapacity=small" {
		t.Errorf("reason = %q", d.Reason())
	}
}

func TestValidate(t *testing.T) {
	errs := Validate([]Selector{
		{MatchLabels: map[string]string{"bad key!": "x", "ok": "not valid"}},
		{MatchExpressions: []Requirement{{"k", "Maybe", nil}, {"k", OpIn, nil}, {"k", OpExists, []string{"v"}}}},
	})
	want := [][]any{
		{0, "match_labels", "bad key!"},
		{0, "match_labels", "ok"},
		{1, "match_expressions", 0, "operator"},
		{1, "match_expressions", 1, "values"},
		{1, "match_expressions", 2, "values"},
	}
	var got [][]any
	for _, e := range errs {
		got = append(got, e.Path)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("paths = %v, want %v", got, want)
	}
	if len(Validate([]Selector{sel("env", "dev"), {MatchExpressions: []Requirement{{"z", OpNotIn, []string{"a"}}}}})) != 0 {
		t.Error("valid selectors refused")
	}
}

// TestSelectorsOverTwoDestinations: over destinations prod and dev, [{}] selects both, env=dev
// only dev, "match any" of env=dev and env=prod both, "match all" of them only dev (the first
// entry wins the key).
func TestSelectorsOverTwoDestinations(t *testing.T) {
	pool := []Destination{{Name: "prod", Labels: map[string]string{"env": "prod"}}, {Name: "dev", Labels: map[string]string{"env": "dev"}}}
	if got := Selected(Schedule(Merge([]Selector{{}}), pool)); !reflect.DeepEqual(got, []string{"dev", "prod"}) {
		t.Errorf("[{}] selects %v", got)
	}
	if got := Selected(Schedule(Merge([]Selector{sel("env", "dev")}), pool)); !reflect.DeepEqual(got, []string{"dev"}) {
		t.Errorf("env=dev selects %v", got)
	}
	anyOf := ScheduleAny([]Selector{sel("env", "dev"), sel("env", "prod")}, pool)
	if got := Selected(anyOf); !reflect.DeepEqual(got, []string{"dev", "prod"}) || !strings.HasPrefix(anyOf[0].Reason(), "matches entry 2") {
		t.Errorf("match any selects %v (%q)", got, anyOf[0].Reason())
	}
	if got := Selected(Schedule(Merge([]Selector{sel("env", "dev"), sel("env", "prod")}), pool)); !reflect.DeepEqual(got, []string{"dev"}) {
		t.Errorf("match all of [env=dev, env=prod] selects %v: the first entry wins the key", got)
	}
	if !Matches(sel("env", "dev"), map[string]string{"env": "dev", "x": "y"}) || Matches(sel("env", "dev"), nil) {
		t.Error("Matches disagrees with Schedule")
	}
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("worker-%d", i)
	}
	return out
}

// The choice is fair and stable: 1,000 keys over 10 destinations give each 70 to 130; an 11th
// destination moves at most 15% of them; the order of the pool does not matter.
func TestChooseFairAndStable(t *testing.T) {
	ten := names(10)
	count := map[string]int{}
	before := map[string]string{}
	for i := 0; i < 1000; i++ {
		key := fmt.Sprintf("default/jenkins/instance-%d", i)
		c, ok := Choose(key, ten)
		if !ok {
			t.Fatal("no choice")
		}
		count[c]++
		before[key] = c
	}
	for _, n := range ten {
		if count[n] < 70 || count[n] > 130 {
			t.Errorf("%s got %d of 1000 requests, want 70..130 (all: %v)", n, count[n], count)
		}
	}
	eleven := names(11)
	moved := 0
	for key, was := range before {
		now, _ := Choose(key, eleven)
		if now != was {
			if now != "worker-10" {
				t.Errorf("%s moved from %s to %s, not to the new destination", key, was, now)
			}
			moved++
		}
	}
	if moved > 150 {
		t.Errorf("adding a destination moved %d of 1000 requests, want at most 150", moved)
	}
	t.Logf("spread %v; an 11th destination moved %d of 1000", count, moved)
	rng := rand.New(rand.NewSource(1))
	for key, was := range before {
		shuffled := append([]string(nil), ten...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if now, _ := Choose(key, shuffled); now != was {
			t.Fatalf("the order of the pool changed the choice for %s", key)
		}
	}
	if _, ok := Choose("k", nil); ok {
		t.Error("a choice among no candidates")
	}
}

func TestSelectorString(t *testing.T) {
	s := Selector{MatchLabels: map[string]string{"b": "2", "a": "1"}, MatchExpressions: []Requirement{{"z", OpIn, []string{"x", "y"}}, {"g", OpExists, nil}}}
	if got := s.String(); got != "a=1,b=2,z in (x,y),g" {
		t.Errorf("String() = %q", got)
	}
}
