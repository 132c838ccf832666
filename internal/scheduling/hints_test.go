package scheduling

import (
	"reflect"
	"testing"
)

func TestUnknownKeys(t *testing.T) {
	pool := []Destination{
		{Name: "dev", Labels: map[string]string{"environment": "dev", "zone": "a"}},
		{Name: "prod", Labels: map[string]string{"environment": "prod", "team": "x"}},
	}
	for _, c := range []struct {
		name string
		sel  Selector
		want []KeyHint
	}{
		{"every key exists", Selector{MatchLabels: map[string]string{"environment": "dev"}}, nil},
		{"a typo", Selector{MatchLabels: map[string]string{"enviroment": "dev"}}, []KeyHint{{"enviroment", "environment"}}}, //nolint:misspell // the typo is the test
		{"a case slip", Selector{MatchLabels: map[string]string{"Zone": "a"}}, []KeyHint{{"Zone", "zone"}}},
		{"nothing close", Selector{MatchLabels: map[string]string{"region": "eu"}}, []KeyHint{{"region", ""}}},
		{"expressions that need the key", Selector{MatchExpressions: []Requirement{
			{Key: "tema", Operator: OpIn, Values: []string{"x"}}, {Key: "gpu", Operator: OpExists}}},
			[]KeyHint{{"gpu", ""}, {"tema", "team"}}},
		{"expressions that want it absent", Selector{MatchExpressions: []Requirement{
			{Key: "gpu", Operator: OpDoesNotExist}, {Key: "tier", Operator: OpNotIn, Values: []string{"a"}}}}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := UnknownKeys(c.sel, pool); !reflect.DeepEqual(got, c.want) {
				t.Errorf("UnknownKeys = %v, want %v", got, c.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"enviroment", "environment", 1}, {"team", "tema", 1}, {"ab", "ba", 1}, {"abc", "ca", 3}} { //nolint:misspell // the typo is the test
		if got := editDistance(c.a, c.b); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
