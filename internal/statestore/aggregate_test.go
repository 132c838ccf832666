package statestore

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
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

// aggregateBackend is a store of each kind with an independent way to write and read its files
// (plain minio-go, the git CLI).
type aggregateBackend struct {
	s     Store
	write func(p, content string)
	read  func(p string) (string, bool)
	list  func(prefix string) []string
}

func aggregateBackends(t *testing.T, kind string) aggregateBackend {
	t.Helper()
	if kind == "bucket" {
		bs, client, bucket := testBucket(t)
		read := func(p string) (string, bool) {
			c, ok := objects(t, client, bucket)[p]
			return c, ok
		}
		list := func(prefix string) []string {
			var out []string
			for _, k := range sortedMapKeys(objects(t, client, bucket)) {
				if strings.HasPrefix(k, prefix) {
					out = append(out, k)
				}
			}
			return out
		}
		return aggregateBackend{s: bs, write: func(p, c string) { putObject(t, client, bucket, p, c) }, read: read, list: list}
	}
	bare := bareRepo(t, true)
	list := func(prefix string) []string {
		var out []string
		for _, p := range lsTree(t, bare) {
			if strings.HasPrefix(p, prefix) {
				out = append(out, p)
			}
		}
		return out
	}
	return aggregateBackend{s: fileStore(t, NewPool(), bare), write: func(p, c string) { pushFile(t, bare, p, c) },
		read: func(p string) (string, bool) { return show(t, bare, p) }, list: list}
}

// TestAggregateRemainder: an aggregate someone else wrote (Kratix, which keeps no parts) is not
// rebuilt from the first part alone: the documents no part holds stay in the file, kept in the
// remainder part, until parts hold them; then the remainder goes.
func TestAggregateRemainder(t *testing.T) {
	const (
		docA = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
		docB = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
		docC = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: c\n"
		// Kratix's serialisation of docB's object: other key order and flow style.
		kratixB = "kind: ConfigMap\napiVersion: v1\nmetadata: {name: b}\n"
	)
	for _, kind := range []string{"bucket", "git"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			st := aggregateBackends(t, kind)
			agg := Aggregate{File: "w/aggregated.yaml", Dir: "w/.kratix/aggregated/"}
			remainder := agg.Dir + "kratix-remainder.part"
			st.write(agg.File, docA+"\n---\n"+kratixB+"\n---\n"+docC)
			apply := func(name, content string) {
				t.Helper()
				c := Change{Message: "Update from: " + name, Put: map[string][]byte{agg.Dir + name + ".part": []byte(content)},
					Aggregates: []Aggregate{agg}}
				if _, err := st.s.Apply(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			expect := func(file, rem string) {
				t.Helper()
				if got, _ := st.read(agg.File); got != file {
					t.Errorf("aggregate = %q\nwant        %q", got, file)
				}
				got, ok := st.read(remainder)
				switch {
				case rem == "" && ok:
					t.Errorf("the remainder outlived its last document: %q", got)
				case rem != "" && got != rem:
					t.Errorf("remainder = %q (exists %v)\nwant        %q", got, ok, rem)
				}
			}

			// The promise's part holds docC: the file keeps docA and docB. The parts' join (the
			// part, then the remainder, whose name sorts after a placement's "a-promise...") holds
			// the same pieces as Kratix's file, so the file is left as Kratix ordered it.
			apply("a-promise.w-5058f", docC)
			expect(docA+"\n---\n"+kratixB+"\n---\n"+docC, docA+"\n---\n"+kratixB)
			if got := st.list(agg.Dir); !reflect.DeepEqual(got, []string{agg.Dir + "a-promise.w-5058f.part", remainder}) {
				t.Errorf("parts %v", got)
			}
			// A request's part holds docB in this provider's serialisation: it leaves the
			// remainder and is in the file once.
			apply("b-request.w-5058f", docB)
			expect(docC+"\n---\n"+docB+"\n---\n"+docA, docA)
			// The last document is taken over: the remainder goes.
			apply("c-request.w-5058f", docA)
			expect(docC+"\n---\n"+docB+"\n---\n"+docA, "")
			if got := st.list(agg.Dir); len(got) != 3 {
				t.Errorf("parts %v, want the three parts", got)
			}
		})
	}
}

// TestAggregateRemainderOnlyWithoutParts: when parts exist, the aggregate is rebuilt from them
// alone, so that a hand edit of the file is repaired and no remainder is made; and a file whose
// documents the first part holds entirely needs no remainder.
func TestAggregateRemainderOnlyWithoutParts(t *testing.T) {
	const (
		docA = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
		docB = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n"
	)
	for _, kind := range []string{"bucket", "git"} {
		t.Run(kind, func(t *testing.T) {
			ctx := context.Background()
			st := aggregateBackends(t, kind)
			agg := Aggregate{File: "w/aggregated.yaml", Dir: "w/.kratix/aggregated/"}
			apply := func(name, content string) {
				t.Helper()
				c := Change{Message: "Update from: " + name, Put: map[string][]byte{agg.Dir + name + ".part": []byte(content)},
					Aggregates: []Aggregate{agg}}
				if _, err := st.s.Apply(ctx, c); err != nil {
					t.Fatal(err)
				}
			}
			apply("a-promise.w-5058f", docA)
			st.write(agg.File, docA+"\n---\nkind: Tampered\n")
			apply("b-request.w-5058f", docB)
			if got, _ := st.read(agg.File); got != docA+"\n---\n"+docB {
				t.Errorf("aggregate = %q", got)
			}
			if got := st.list(agg.Dir); len(got) != 2 {
				t.Errorf("parts %v, want the two parts and no remainder", got)
			}

			// Another destination, whose file (written by someone else) the first part holds.
			other := Aggregate{File: "v/aggregated.yaml", Dir: "v/.kratix/aggregated/"}
			st.write(other.File, docB)
			c := Change{Message: "Update from: a", Put: map[string][]byte{other.Dir + "a.part": []byte(docB)}, Aggregates: []Aggregate{other}}
			if _, err := st.s.Apply(ctx, c); err != nil {
				t.Fatal(err)
			}
			if got := st.list(other.Dir); !reflect.DeepEqual(got, []string{other.Dir + "a.part"}) {
				t.Errorf("parts %v, want the part and no remainder", got)
			}
			if got, _ := st.read(other.File); got != docB {
				t.Errorf("aggregate = %q", got)
			}
		})
	}
}

// TestAggregateKeepsKratixOrder: Kratix joins its WorkPlacements in the order of their names,
// which are not this provider's part names. A file Kratix wrote that holds exactly the parts'
// pieces, in another order, is up to date: no apply rewrites it, whether the parts come in one
// apply, or one at a time through the remainder (as an adoption writes them: the promise's part,
// then the request's). Once a piece changes, the file is the parts' join again.
func TestAggregateKeepsKratixOrder(t *testing.T) {
	const (
		deps = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: deps\n"
		req  = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: req\n"
		req2 = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: re2\n"
		// Kratix's order: WorkPlacement p-req-instance-configure-x1y2z.w-5058f sorts before
		// p-static-deps-q3v9z.w-5058f; the provider's parts sort the other way ("-" < "_").
		kratix   = req + "\n---\n" + deps
		depsPart = "p-static-deps.w-5058f.part"
		reqPart  = "p_req_default_instance-configure.w-5058f.part"
	)
	for _, kind := range []string{"bucket", "git"} {
		for _, oneByOne := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/one-by-one=%v", kind, oneByOne), func(t *testing.T) {
				ctx := context.Background()
				st := aggregateBackends(t, kind)
				agg := Aggregate{File: "w/aggregated.yaml", Dir: ".kratix-aggregates/w/aggregated.yaml/"}
				st.write(agg.File, kratix)
				var written []string
				apply := func(put map[string]string) {
					t.Helper()
					c := Change{Message: "Update", Put: map[string][]byte{}, Aggregates: []Aggregate{agg}}
					for p, content := range put {
						c.Put[agg.Dir+p] = []byte(content)
					}
					res, err := st.s.Apply(ctx, c)
					if err != nil {
						t.Fatal(err)
					}
					written = append(written, res.Written...)
				}
				if oneByOne {
					apply(map[string]string{depsPart: deps})
					apply(map[string]string{reqPart: req})
				} else {
					apply(map[string]string{depsPart: deps, reqPart: req})
				}
				if got, _ := st.read(agg.File); got != kratix {
					t.Errorf("aggregate = %q\nwant Kratix's %q", got, kratix)
				}
				if slices.Contains(written, agg.File) {
					t.Errorf("the aggregate was written (writes %v)", written)
				}
				if got, want := st.list(agg.Dir), []string{agg.Dir + depsPart, agg.Dir + reqPart}; !reflect.DeepEqual(got, want) {
					t.Errorf("parts %v, want %v", got, want)
				}
				// The same length, another piece: rebuilt, in the parts' order.
				apply(map[string]string{reqPart: req2})
				if got, want := st.read(agg.File); got != deps+"\n---\n"+req2 {
					t.Errorf("after a piece changed: aggregate = %q (exists %v), want %q", got, want, deps+"\n---\n"+req2)
				}
			})
		}
	}
}
