package rollout

import (
	"reflect"
	"testing"
	"time"
)

// TestAdopt: the status of a rollout read back from what each destination holds, with the waves
// canary, dev, prod-a (prod-1..3), prod-b (prod-4..6).
func TestAdopt(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	with := func(base map[string]string, rev string, names ...string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for _, n := range names {
			out[n] = rev
		}
		return out
	}
	without := func(base map[string]string, names ...string) map[string]string {
		out := with(base, "")
		for _, n := range names {
			delete(out, n)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		held map[string]string
		want Adopted
	}{
		{"everywhere the configured revision: complete", holdAll("v2"), Adopted{Status: Status{Completed: "v2"}, Complete: true}},
		{"nothing held: complete (a new promise)", map[string]string{}, Adopted{Status: Status{Completed: "v2"}, Complete: true}},
		{"everywhere another revision: a change, no wave done", holdAll("v1"),
			Adopted{Status: Status{Completed: "v1", Target: "v2"}}},
		{"canary and dev done, prod waits", with(holdAll("v1"), "v2", "canary-1", "dev-1", "dev-2", "dev-3"),
			Adopted{Status: Status{Completed: "v1", Target: "v2", WavesDone: 2, LastWave: at}}},
		{"half of prod done", with(holdAll("v2"), "v1", "prod-4", "prod-5", "prod-6"),
			Adopted{Status: Status{Completed: "v1", Target: "v2", WavesDone: 3, LastWave: at}}},
		{"a dev destination that missed its wave ends the waves done there",
			with(holdAll("v1"), "v2", "canary-1", "dev-1", "dev-3"),
			Adopted{Status: Status{Completed: "v1", Target: "v2", WavesDone: 1, LastWave: at}}},
		{"a destination holding nothing is not done", without(with(holdAll("v1"), "v2", "canary-1"), "canary-1"),
			Adopted{Status: Status{Completed: "v1", Target: "v2"}}},
		{"three revisions: the last wave's is the completed one, the others intermediate",
			with(with(holdAll("v1"), "v2", "canary-1"), "v1.5", "dev-1", "dev-2", "dev-3", "prod-1"),
			Adopted{Status: Status{Completed: "v1", Target: "v2", WavesDone: 1, LastWave: at}}},
		{"in the last wave that has one, the most common",
			with(with(holdAll("v2"), "va", "prod-4"), "vb", "prod-5", "prod-6"),
			Adopted{Status: Status{Completed: "vb", Target: "v2", WavesDone: 3, LastWave: at}}},
		{"a tie goes to the smaller revision",
			with(with(holdAll("v2"), "vb", "prod-4"), "va", "prod-5"),
			Adopted{Status: Status{Completed: "va", Target: "v2", WavesDone: 3, LastWave: at}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Adopt(waves, "v2", fleet(), tc.held, at); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("Adopt = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestAdoptThenPlanGoesOn: the status Adopt finds plans the next wave, as the status a state kept
// would: the dev wave was written, so the next apply writes prod-a and nothing else.
func TestAdoptThenPlanGoesOn(t *testing.T) {
	held := holdAll("v1")
	for _, d := range []string{"canary-1", "dev-1", "dev-2", "dev-3"} {
		held[d] = "v2"
	}
	a := Adopt(waves, "v2", fleet(), held, time.Time{})
	step := Plan(Input{Policy: Policy{Waves: waves}, Status: a.Status, Revision: "v2", Scheduled: fleet(), Held: held, Staged: true})
	if want := []string{"prod-1", "prod-2", "prod-3"}; !reflect.DeepEqual(step.Now, want) || step.Wrote != 2 {
		t.Fatalf("after adoption the apply writes wave %d to %v, want wave 2 to %v", step.Wrote, step.Now, want)
	}
	if want := []string{"prod-4", "prod-5", "prod-6"}; !reflect.DeepEqual(step.Waiting, want) {
		t.Fatalf("waiting %v, want %v", step.Waiting, want)
	}
}

// TestAdoptWithoutWaves: a promise with one wave (or none) is done or not at all.
func TestAdoptWithoutWaves(t *testing.T) {
	one := []Wave{{Name: "all"}}
	got := Adopt(one, "v2", fleet(), with1(holdAll("v2"), "prod-6", "v1"), time.Time{})
	if want := (Adopted{Status: Status{Completed: "v1", Target: "v2"}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("Adopt = %+v, want %+v", got, want)
	}
	if got := Adopt(nil, "v2", fleet(), holdAll("v2"), time.Time{}); !got.Complete {
		t.Fatalf("Adopt without waves, everything held: %+v, want complete", got)
	}
}

func with1(m map[string]string, k, v string) map[string]string {
	m[k] = v
	return m
}
