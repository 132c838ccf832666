package provider

import (
	"fmt"
	"sort"
	"strings"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/scheduling"
)

const (
	onUnscheduleKeep   = "keep"
	onUnscheduleDelete = "delete"
)

// placement is what a promise keeps in one destination, as recorded in state.
type placement struct {
	Store        string            // the store's name
	Root         string            // the destination's folder
	Misscheduled bool              // written earlier, no longer selected, files kept
	Files        map[string]string // store path => MD5 of the content
}

// promisePlan is everything a plan of a promise decides: where it goes, what is written, what
// is removed, and what the user should be told.
type promisePlan struct {
	Decisions    []scheduling.Decision
	Scheduled    []string
	Misscheduled []string
	// Placements is the new state: scheduled destinations and kept misscheduled ones.
	Placements map[string]placement
	// Writes holds the files of every scheduled destination.
	Writes map[string]layout.Files
	// Removed are earlier placements whose files go (on_unschedule = "delete").
	Removed map[string]placement
	// Forgotten are earlier placements whose destination left the pool: their files are the
	// destination's business now.
	Forgotten []string
	Warnings  []string
}

// planPromise schedules a promise: every destination of the pool that matches gets its
// dependencies. Destinations written earlier that stop matching are misscheduled (kept, no longer
// updated) or, with on_unschedule = "delete", cleared.
func planPromise(name string, sel scheduling.Selector, deps layout.Dependencies, pool []poolMember, prior map[string]placement, onUnschedule string) (promisePlan, error) {
	p := promisePlan{
		Decisions:  scheduling.Schedule(sel, destinationsOf(pool)),
		Placements: map[string]placement{},
		Writes:     map[string]layout.Files{},
		Removed:    map[string]placement{},
	}
	members := map[string]poolMember{}
	for _, m := range pool {
		members[m.Name] = m
	}
	for _, d := range p.Decisions {
		m := members[d.Destination]
		if d.Selected {
			files, err := layout.DependencyFiles(m.Target, deps)
			if err != nil {
				return promisePlan{}, err
			}
			p.Writes[d.Destination] = files
			p.Placements[d.Destination] = placement{Store: m.Store.Name.ValueString(), Root: m.Target.Root, Files: hashStrings(files.Put)}
			p.Scheduled = append(p.Scheduled, d.Destination)
			continue
		}
		before, written := prior[d.Destination]
		if !written {
			continue
		}
		if onUnschedule == onUnscheduleDelete {
			p.Removed[d.Destination] = before
			p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q no longer matches promise %q (%s): its files will be removed (on_unschedule = \"delete\").", d.Destination, name, d.Reason))
			continue
		}
		before.Misscheduled = true
		p.Placements[d.Destination] = before
		p.Misscheduled = append(p.Misscheduled, d.Destination)
		p.Warnings = append(p.Warnings, fmt.Sprintf("Destination %q no longer matches promise %q (%s). Its files stay and are no longer updated (misscheduled); set on_unschedule = \"delete\" to remove them.", d.Destination, name, d.Reason))
	}
	for dest := range prior {
		if _, inPool := members[dest]; !inPool {
			p.Forgotten = append(p.Forgotten, dest)
		}
	}
	sort.Strings(p.Scheduled)
	sort.Strings(p.Misscheduled)
	sort.Strings(p.Forgotten)
	if len(p.Scheduled) == 0 {
		var why []string
		for _, d := range p.Decisions {
			why = append(why, fmt.Sprintf("%s: %s", d.Destination, d.Reason))
		}
		if len(why) == 0 {
			why = []string{"the pool is empty"}
		}
		p.Warnings = append([]string{fmt.Sprintf("Promise %q: no destinations can be selected for scheduling (selectors: %s). Nothing is written until a destination matches.\n\n%s",
			name, selectorText(sel), strings.Join(why, "\n"))}, p.Warnings...)
	}
	return p, nil
}
