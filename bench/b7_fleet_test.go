package main

import (
	"math"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestGrowthExponent(t *testing.T) {
	for _, tc := range []struct {
		name           string
		x0, y0, x1, y1 float64
		want           float64
	}{
		{"linear", 100, 3, 400, 12, 1},
		{"quadratic", 100, 3, 400, 48, 2},
		{"constant", 100, 5, 400, 5, 0},
		{"no measurement", 100, 0, 400, 12, 0},
		{"one size", 100, 3, 100, 3, 0},
	} {
		if got := growthExponent(tc.x0, tc.y0, tc.x1, tc.y1); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: growthExponent = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestFleetWatcherSeesTheProcessInItsFolder runs a busy shell loop in a temporary folder and
// checks that the watcher, told to look for that shell in that folder, saw its memory and CPU
// time, and saw nothing of a provider that never ran.
func TestFleetWatcherSeesTheProcessInItsFolder(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if sh, err = filepath.EvalSymlinks(sh); err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := startFleetWatcher("/nonexistent/terraform-provider-kratix", sh, dir)
	cmd := exec.Command(sh, "-c", `i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done`)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("busy loop: %v: %s", err, out)
	}
	u := w.stop()
	if u.terraformMiB <= 0 || u.terraformCPU <= 0 {
		t.Errorf("watched process: peak %.1f MiB, CPU %s; want both above 0", u.terraformMiB, u.terraformCPU)
	}
	if u.providerMiB != 0 || u.providerCPU != 0 {
		t.Errorf("provider that never ran: peak %.1f MiB, CPU %s; want 0", u.providerMiB, u.providerCPU)
	}
}

// TestFleetGrowthRowJudgesWhatTheProviderAdds: figures that grow linearly, and a plan that grows as
// its fair floor does (faster than linearly), meet the goal; a plan whose ratio to its floor grows,
// or a provider CPU time that grows with the square of the fleet, does not.
func TestFleetGrowthRowJudgesWhatTheProviderAdds(t *testing.T) {
	point := func(dests int, plan, fair, cpu time.Duration) fleetPoint {
		cells := 50 * dests
		return fleetPoint{
			destinations: dests, promises: 50,
			plan: timings{plan}, fair: timings{fair}, planProviderCPU: timings{cpu},
			stateBytes: int64(1300 * cells), planUse: fleetUsage{providerMiB: float64(cells) / 32},
		}
	}
	for _, tc := range []struct {
		name   string
		points []fleetPoint
		met    string
	}{
		{"linear, floor superlinear", []fleetPoint{
			point(250, 30*time.Second, 30*time.Second, 20*time.Second),
			point(1000, 200*time.Second, 240*time.Second, 80*time.Second),
		}, "yes"},
		{"ratio grows", []fleetPoint{
			point(250, 30*time.Second, 30*time.Second, 20*time.Second),
			point(1000, 400*time.Second, 120*time.Second, 80*time.Second),
		}, "no"},
		{"provider CPU quadratic", []fleetPoint{
			point(250, 30*time.Second, 30*time.Second, 20*time.Second),
			point(1000, 120*time.Second, 120*time.Second, 320*time.Second),
		}, "no"},
		{"no floor", []fleetPoint{
			point(250, 30*time.Second, 0, 20*time.Second),
			point(1000, 120*time.Second, 0, 80*time.Second),
		}, "no"},
	} {
		if got := fleetGrowthRow(tc.points).met; got != tc.met {
			t.Errorf("%s: met = %q, want %q", tc.name, got, tc.met)
		}
	}
}
