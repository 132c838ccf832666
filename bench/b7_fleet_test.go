package main

import (
	"math"
	"os/exec"
	"path/filepath"
	"testing"
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
