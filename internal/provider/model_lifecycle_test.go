package provider

// The lifecycle operations of the model-based acceptance test (refmodel/lifecycle.go): an
// apply through a saved plan, and the check that it deletes no file the plan did not show.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider/tfvalue"
	"github.com/promise-platform/terraform-provider-kratix/internal/refmodel"
)

// planShown are the files a saved plan shows going: per store, paths, and folders whose whole
// content may go (a destination destroyed or replaced with cleanup = "all").
type planShown struct {
	files   [2]map[string]bool
	folders []string // any store: the plan's JSON does not name a destination's store by place
}

func (s *planShown) covers(store int, p string) bool {
	if s.files[store][p] {
		return true
	}
	return slices.ContainsFunc(s.folders, func(f string) bool { return f == "" || strings.HasPrefix(p, strings.TrimSuffix(f, "/")+"/") })
}

// placedFiles walks a resource's values and collects every file it records: each object with a
// "location" and a "files" or "written_files" map ("<store>\x00<path>").
func placedFiles(c *modelConn, v any, out map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if loc, ok := x["location"].(string); ok {
			if store := c.bucketOf(loc); store >= 0 {
				for _, key := range []string{"files", "written_files"} {
					if files, ok := x[key].(map[string]any); ok {
						for p := range files {
							out[fmt.Sprintf("%d\x00%s", store, p)] = true
						}
					}
				}
			}
		}
		for _, y := range x {
			placedFiles(c, y, out)
		}
	case []any:
		for _, y := range x {
			placedFiles(c, y, out)
		}
	}
}

// shownByPlan reads `terraform show -json <plan>`: the files a resource records before the
// change and not after it (all of them when the files after are unknown), and the folders of
// destinations deleted with cleanup = "all".
func shownByPlan(c *modelConn, planJSON string) (*planShown, error) {
	var plan struct {
		ResourceChanges []struct {
			Address string `json:"address"`
			Type    string `json:"type"`
			Change  struct {
				Actions      []string        `json:"actions"`
				Before       any             `json:"before"`
				After        any             `json:"after"`
				AfterUnknown json.RawMessage `json:"after_unknown"`
			} `json:"change"`
		} `json:"resource_changes"`
	}
	if err := json.Unmarshal([]byte(planJSON), &plan); err != nil {
		return nil, fmt.Errorf("terraform show -json: %v", err)
	}
	s := &planShown{files: [2]map[string]bool{{}, {}}}
	for _, rc := range plan.ResourceChanges {
		if !strings.HasPrefix(rc.Type, "kratix_") {
			continue
		}
		before, after := map[string]bool{}, map[string]bool{}
		placedFiles(c, rc.Change.Before, before)
		placedFiles(c, rc.Change.After, after)
		unknown := string(rc.Change.AfterUnknown)
		allGo := slices.Contains(rc.Change.Actions, "delete") || strings.Contains(unknown, `"files":true`) ||
			strings.Contains(unknown, `"written_files":true`) || strings.Contains(unknown, `"placements":true`) || strings.Contains(unknown, `"group_placements":true`)
		for k := range before {
			if allGo || !after[k] {
				store, p, _ := strings.Cut(k, "\x00")
				s.files[store[0]-'0'][p] = true
			}
		}
		if b, ok := rc.Change.Before.(map[string]any); ok && rc.Type == "kratix_destination" && slices.Contains(rc.Change.Actions, "delete") {
			if cleanup, _ := b["cleanup"].(string); cleanup == "all" {
				root, _ := b["root"].(string)
				s.folders = append(s.folders, root)
			}
		}
	}
	return s, nil
}

// savedPlanApply runs `terraform plan -out` with extra (the -replace flags), makes hands (another
// writer's store changes), then applies the saved plan. It returns the apply's output and
// error, and the files the apply deleted that the plan did not show.
func savedPlanApply(t *testing.T, c *cli, conn *modelConn, extra []string, hands []refmodel.Hand) (string, []string, error) {
	t.Helper()
	out, err := c.run(append([]string{"plan", "-input=false", "-out=step.tfplan"}, extra...)...)
	if err != nil {
		return out, nil, fmt.Errorf("terraform plan -out: %w", err)
	}
	js, err := c.run("show", "-json", "step.tfplan")
	if err != nil {
		return js, nil, fmt.Errorf("terraform show -json: %w", err)
	}
	shown, err := shownByPlan(conn, js)
	if err != nil {
		return js, nil, err
	}
	for _, h := range hands {
		conn.hand(t, h)
	}
	before := conn.snapshot(t)
	out, err = c.run("apply", "-input=false", "step.tfplan")
	after := conn.snapshot(t)
	var problems []string
	for store := range before {
		for _, p := range tfvalue.SortedKeys(before[store]) {
			if _, ok := after[store][p]; !ok && !shown.covers(store, p) {
				problems = append(problems, fmt.Sprintf("%s (store %d) was deleted by the apply, but the plan did not show it going", p, store))
			}
		}
	}
	return out, problems, err
}
