package provider

import (
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

func member(name string, labels map[string]string) poolMember {
	return poolMember{
		Destination: scheduling.Destination{Name: name, Labels: labels},
		Store:       storeRefModel{Name: types.StringValue("s")},
		Target:      layout.Target{Destination: name, Mode: layout.ModeNestedByMetadata, Root: name},
	}
}

func TestPlanPromise(t *testing.T) {
	deps := layout.Dependencies{Promise: "app", All: []byte("kind: Namespace\n")}
	dev := scheduling.Selector{MatchLabels: map[string]string{"env": "dev"}}
	prod := scheduling.Selector{MatchLabels: map[string]string{"env": "prod"}}
	pool := []poolMember{member("d1", map[string]string{"env": "dev"}), member("p1", map[string]string{"env": "prod"})}

	// Nothing matches: a warning with the selectors and each destination's reason, nothing written.
	p, err := planPromise("app", scheduling.Selector{MatchLabels: map[string]string{"env": "qa"}}, deps, pool, nil, onUnscheduleKeep)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Scheduled) != 0 || len(p.Writes) != 0 || len(p.Warnings) != 1 ||
		!strings.Contains(p.Warnings[0], "no destinations can be selected for scheduling") || !strings.Contains(p.Warnings[0], "env=qa") {
		t.Errorf("no match: %+v", p)
	}

	first, _ := planPromise("app", dev, deps, pool, nil, onUnscheduleKeep)
	if !reflect.DeepEqual(first.Scheduled, []string{"d1"}) {
		t.Fatalf("scheduled = %v", first.Scheduled)
	}
	file := "d1/dependencies/app/5058f/static/app-dependencies.yaml"
	if first.Placements["d1"].Files[file] == "" {
		t.Errorf("placement files = %v", first.Placements["d1"].Files)
	}

	// Moving to prod: d1 is kept as misscheduled with its old files, and a warning says why.
	moved, _ := planPromise("app", prod, deps, pool, first.Placements, onUnscheduleKeep)
	if !reflect.DeepEqual(moved.Scheduled, []string{"p1"}) || !reflect.DeepEqual(moved.Misscheduled, []string{"d1"}) {
		t.Errorf("scheduled %v, misscheduled %v", moved.Scheduled, moved.Misscheduled)
	}
	if !moved.Placements["d1"].Misscheduled || !reflect.DeepEqual(moved.Placements["d1"].Files, first.Placements["d1"].Files) {
		t.Errorf("misscheduled placement = %+v", moved.Placements["d1"])
	}
	if _, writes := moved.Writes["d1"]; writes {
		t.Error("a misscheduled destination is written")
	}
	if len(moved.Warnings) != 1 || !strings.Contains(moved.Warnings[0], `"d1" no longer matches`) {
		t.Errorf("warnings = %v", moved.Warnings)
	}

	// With on_unschedule = delete its files are removed instead.
	deleted, _ := planPromise("app", prod, deps, pool, first.Placements, onUnscheduleDelete)
	if _, kept := deleted.Placements["d1"]; kept || deleted.Removed["d1"].Files[file] == "" {
		t.Errorf("on_unschedule delete: placements %v, removed %v", deleted.Placements, deleted.Removed)
	}

	// A destination that leaves the pool is forgotten: no write, no removal.
	gone, _ := planPromise("app", prod, deps, pool[1:], first.Placements, onUnscheduleDelete)
	if !reflect.DeepEqual(gone.Forgotten, []string{"d1"}) || len(gone.Removed) != 0 {
		t.Errorf("left the pool: forgotten %v, removed %v", gone.Forgotten, gone.Removed)
	}
}
