package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestZoneDatabaseBuiltIn: the provider is built for Windows, and for runners with no
// /usr/share/zoneinfo, without cgo and with -trimpath: there Go finds no zone database of the
// system's, and every time_zone of rollout.windows, "Europe/London" included, would be refused as
// unknown. The binary must carry its own, time/tzdata (imported by package rollout).
func TestZoneDatabaseBuiltIn(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if deps := strings.Fields(string(out)); !slices.Contains(deps, "time/tzdata") {
		t.Fatalf("the provider does not import time/tzdata: time_zone works only where the system has a zone database")
	}
}
