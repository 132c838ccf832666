package refmodel

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"testing"
)

// TestModelCollideOp: in most worlds the step finds two requests for one destination in mode
// none; they write one file there (said here from the requests' outputs, not from the step's
// own choice of file), both are placed on it, and revert gives the world back.
func TestModelCollideOp(t *testing.T) {
	found, sameName, added := 0, 0, 0
	for seed := int64(1); seed <= 200; seed++ {
		rng := newModelRNG(seed)
		w := newModelWorld(rng, "bucket", Modes)
		m := newRefModel(w)
		choices := map[string]string{}
		for _, r := range w.requests {
			if c := w.candidates(r); len(c) > 0 {
				choices[r.name] = c[0]
			}
		}
		m.Settle(choices)
		before := w.describe()
		op, ok := m.collideOp(rng, presentDests(w), slices.Clone(w.requests))
		if !ok {
			continue
		}
		found++
		// The two requests that write one path: every present request is either placed (by
		// the model's choice) or new with a single candidate.
		where := map[string]string{}
		for _, r := range w.requests {
			if !r.present {
				continue
			}
			dest := "" // the stand-in above places each on one destination
			if on := m.choice[r.name]; len(on) > 0 {
				dest = on[0]
			}
			if r.name[0] == 'c' {
				added++
				c := w.candidates(r)
				if len(c) != 1 {
					t.Fatalf("seed %d: %s: new request %s has candidates %v", seed, op.Desc, r.name, c)
				}
				dest = c[0]
			}
			d := w.dest(dest)
			if d == nil || d.mode != modeNone {
				continue
			}
			for name := range w.requestOutput(r) {
				p := inFolder(w.root(d), name)
				if other, ok := where[p]; ok {
					if !strings.Contains(op.Desc, p) || !strings.Contains(op.Desc, other) {
						t.Errorf("seed %d: %s and %s write %s, but the step says %s", seed, other, r.name, p, op.Desc)
					}
					where[p] = "twice"
					if path.Base(p) == r.kratixName()+".yaml" {
						sameName++
					}
				} else {
					where[p] = fmt.Sprintf("request %s/%s/%s", w.promises[r.promise].name, r.namespace, r.kratixName())
				}
			}
		}
		if !slices.Contains(modelKeysOfValue(where, "twice"), strings.Trim(op.ExpectAlso[2], `"`)) {
			t.Errorf("seed %d: no two requests write %s: %s\n%s", seed, op.ExpectAlso[2], op.Desc, w.describe())
		}
		op.Revert()
		if after := w.describe(); after != before {
			t.Errorf("seed %d: revert does not restore the world:\n%s\n%s", seed, before, after)
		}
	}
	t.Logf("of 200 worlds, %d give a collision (%d of one request name, %d new requests)", found, sameName, added)
	if found < 150 || sameName < 20 || added < 100 {
		t.Errorf("of 200 worlds, %d give a collision (%d of one request name, %d new requests)", found, sameName, added)
	}
}

// modelKeysOfValue are the keys of m whose value is v, sorted.
func modelKeysOfValue(m map[string]string, v string) []string {
	var out []string
	for _, k := range modelKeys(m) {
		if m[k] == v {
			out = append(out, k)
		}
	}
	return out
}
