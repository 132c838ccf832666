package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// TestQuietUnlessAsked: the SDK's logs are turned off only when no variable asks for provider
// logs, so TF_LOG=debug terraform plan still shows them.
func TestQuietUnlessAsked(t *testing.T) {
	quietVars := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"}
	for _, tc := range []struct {
		environ []string
		quiet   bool
	}{
		{environ: []string{"PATH=/bin", "TF_LOG="}, quiet: true},
		{environ: []string{"TF_LOG=debug"}, quiet: false},
		{environ: []string{"TF_LOG_PROVIDER=trace"}, quiet: false},
		{environ: []string{"TF_LOG_PROVIDER_KRATIX=debug"}, quiet: false},
		{environ: []string{"TF_LOG_SDK_FRAMEWORK=trace"}, quiet: false},
		{environ: []string{"TF_LOG_CORE=trace"}, quiet: true}, // Terraform shows no provider logs then
	} {
		for _, v := range quietVars {
			t.Setenv(v, "")
		}
		quietUnlessAsked(tc.environ)
		for _, v := range quietVars {
			got := os.Getenv(v)
			if tc.quiet && got != "off" {
				t.Errorf("%v: %s = %q, want off", tc.environ, v, got)
			}
			if !tc.quiet && got != "" {
				t.Errorf("%v: %s = %q, want it left unset", tc.environ, v, got)
			}
		}
	}
}

// TestTuneGC: nothing is collected until the first collection (made when the process's memory
// reaches gcQuietUpTo), which hands over to GOGC 200 and the 2 GiB soft limit.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	tuneGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Errorf("GC percent before the first collection %d, want -1 (off)", got)
	}
	if got := debug.SetMemoryLimit(-1); got != gcQuietUpTo {
		t.Errorf("memory limit before the first collection %d, want %d", got, gcQuietUpTo)
	}
	deadline := time.Now().Add(5 * time.Second)
	for debug.SetMemoryLimit(-1) != gcMemoryLimit && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if got := debug.SetMemoryLimit(-1); got != gcMemoryLimit {
		t.Errorf("memory limit after a collection %d, want %d", got, gcMemoryLimit)
	}
	if got := debug.SetGCPercent(gcPercent); got != gcPercent {
		t.Errorf("GC percent after a collection %d, want %d", got, gcPercent)
	}
}
