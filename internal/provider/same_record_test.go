package provider

import (
	"reflect"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// TestSameRecordIsDeepEqual: sameRecord, which settleRollout uses in place of reflect.DeepEqual,
// says what DeepEqual says, a nil Files and an empty one included.
func TestSameRecordIsDeepEqual(t *testing.T) {
	t.Parallel()
	base := placement.Record{Store: "s3://m/b", Location: "s3://m/b/w", Root: "w", Files: map[string]string{"w/a.yaml": "01"}}
	with := func(edit func(*placement.Record)) placement.Record {
		r := base
		r.Files = map[string]string{"w/a.yaml": "01"}
		edit(&r)
		return r
	}
	for name, c := range map[string]struct {
		a, b placement.Record
		want bool
	}{
		"same":              {base, with(func(*placement.Record) {}), true},
		"zero":              {placement.Record{}, placement.Record{}, true},
		"nil and empty":     {placement.Record{}, placement.Record{Files: map[string]string{}}, false},
		"store":             {base, with(func(r *placement.Record) { r.Store = "s3://m/c" }), false},
		"location":          {base, with(func(r *placement.Record) { r.Location = "x" }), false},
		"root":              {base, with(func(r *placement.Record) { r.Root = "x" }), false},
		"misscheduled":      {base, with(func(r *placement.Record) { r.Misscheduled = true }), false},
		"a file's sum":      {base, with(func(r *placement.Record) { r.Files["w/a.yaml"] = "02" }), false},
		"one file more":     {base, with(func(r *placement.Record) { r.Files["w/b.yaml"] = "01" }), false},
		"missing from plan": {placement.Record{}, base, false},
	} {
		if got := sameRecord(c.a, c.b); got != c.want || got != reflect.DeepEqual(c.a, c.b) {
			t.Errorf("%s: sameRecord %v, want %v (DeepEqual %v)", name, got, c.want, reflect.DeepEqual(c.a, c.b))
		}
	}
}
