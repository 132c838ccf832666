package statestore

import (
	"context"
	"testing"
)

// TestAggregate: several writers contribute to one aggregatedYAML file; each rebuilds the whole,
// in placement-name order, and the file goes with the last contribution.
func TestAggregate(t *testing.T) {
	for _, kind := range []string{"bucket", "git"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			var s Store
			var read func(string) (string, bool)
			if kind == "bucket" {
				bs, client, bucket := testBucket(t)
				s = bs
				read = func(p string) (string, bool) {
					got := objects(t, client, bucket)
					c, ok := got[p]
					return c, ok
				}
			} else {
				bare := bareRepo(t, true)
				s = fileStore(t, NewPool(), bare)
				read = func(p string) (string, bool) { return show(t, bare, p) }
			}
			agg := Aggregate{File: "w/aggregated.yaml", Dir: "w/.kratix/aggregated/"}
			write := func(name, content string) {
				t.Helper()
				c := Change{Message: "Update from: " + name, Aggregates: []Aggregate{agg}}
				if content == "" {
					c.Delete = []string{agg.Dir + name + ".yaml"}
				} else {
					c.Put = map[string][]byte{agg.Dir + name + ".yaml": []byte(content)}
				}
				if _, err := s.Apply(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			write("b-promise", "kind: B\n")
			write("a-promise", "kind: A\n")
			if got, _ := read(agg.File); got != "kind: A\n\n---\nkind: B\n" {
				t.Errorf("aggregate = %q", got)
			}
			write("a-promise", "")
			if got, _ := read(agg.File); got != "kind: B\n" {
				t.Errorf("after removing a contribution: %q", got)
			}
			write("b-promise", "")
			if got, ok := read(agg.File); ok {
				t.Errorf("the aggregate outlived its last contribution: %q", got)
			}
		})
	}
}
