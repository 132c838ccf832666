package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/promise-platform/terraform-provider-kratix/internal/health"
)

// TestExtraRequestsWantsOneListingOfHealth: the observed plan passes with B7's requests plus one
// listing of health/ and one GET per record file, and fails with health/ listed twice (the
// store's existence probe beside the records' read), a record file not read, another prefix
// listed, or a request of another kind.
func TestExtraRequestsWantsOneListingOfHealth(t *testing.T) {
	plain := s3Counts{Lists: 2, Listings: 1, Listed: map[string]int{"b/": 1}, Other: 1, OtherKinds: map[string]int{"GET bucket?location": 1}}
	good := func() s3Counts {
		return s3Counts{Gets: 20, Lists: 3, Listings: 2, Listed: map[string]int{"b/": 1, "b/health/": 1},
			Other: 2, OtherKinds: map[string]int{"GET bucket?location": 2}}
	}
	if !extraRequests(good(), plain, "b", 20) {
		t.Errorf("B7's requests + 1 listing of health/ + 20 GETs: not accepted")
	}
	for name, change := range map[string]func(c *s3Counts){
		"health listed twice": func(c *s3Counts) { c.Lists, c.Listings, c.Listed["b/health/"] = 4, 3, 2 },
		"a record not read":   func(c *s3Counts) { c.Gets = 19 },
		"another prefix":      func(c *s3Counts) { delete(c.Listed, "b/health/"); c.Listed["b/dest-000/"] = 1 },
		"a DELETE":            func(c *s3Counts) { c.Other++; c.OtherKinds["DELETE object"] = 1 },
		"a PUT":               func(c *s3Counts) { c.Puts = 1 },
	} {
		c := good()
		change(&c)
		if extraRequests(c, plain, "b", 20) {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestHealthRecordYAMLParses: a seeded record is a HealthRecord of its promise to the provider's
// parser, in a file of several documents.
func TestHealthRecordYAMLParses(t *testing.T) {
	lastRun := time.Unix(1764230400, 0)
	file := healthRecordYAML("p-0", "healthy", lastRun) + "---\n" + healthRecordYAML("p-1", "healthy", lastRun)
	recs, err := health.Parse("health/dest-000/records.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Promise != "p-0" || recs[1].Promise != "p-1" || recs[1].State != "healthy" ||
		!recs[1].LastRun.Equal(lastRun) || recs[1].Resource.Name != "" {
		t.Errorf("parsed %+v, want promise records p-0 and p-1, healthy, last run %s", recs, lastRun)
	}
}

// TestCheckHealthRefusesVacuousState: the check after the set-up passes only with every
// destination of every promise healthy and fresh.
func TestCheckHealthRefusesVacuousState(t *testing.T) {
	entry := `{"state": "healthy", "fresh": true, "last_run": "2026-11-27T00:00:00Z", "applied": null, "source": "x"}`
	promise := func(name, health string) string {
		return `{"attributes": {"name": "` + name + `", "health": ` + health + `}}`
	}
	both := `{"dest-000": ` + entry + `, "dest-001": ` + entry + `}`
	for _, tc := range []struct {
		name      string
		instances []string
		ok        bool
	}{
		{"every destination healthy and fresh", []string{promise("p-0", both), promise("p-1", both)}, true},
		{"health null", []string{promise("p-0", both), promise("p-1", "null")}, false},
		{"one destination", []string{promise("p-0", both), promise("p-1", `{"dest-000": `+entry+`}`)}, false},
		{"unknown", []string{promise("p-0", both), promise("p-1", strings.Replace(both, `"healthy"`, `"unknown"`, 1))}, false},
		{"not fresh", []string{promise("p-0", both), promise("p-1", strings.Replace(both, `"fresh": true`, `"fresh": false`, 1))}, false},
		{"one promise", []string{promise("p-0", both)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			state := `{"resources": [{"type": "kratix_promise", "name": "p", "instances": [` + strings.Join(tc.instances, ",") + `]}]}`
			if err := os.WriteFile(filepath.Join(dir, "terraform.tfstate"), []byte(state), 0o600); err != nil {
				t.Fatal(err)
			}
			n, err := checkHealth(&workspace{dir: dir}, 2, 2)
			if tc.ok && (err != nil || n != 4) {
				t.Errorf("checked %d entries, error %v; want 4, none", n, err)
			}
			if !tc.ok && err == nil {
				t.Errorf("accepted (%d entries)", n)
			}
		})
	}
}
