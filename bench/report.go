package main

import (
	"fmt"
	"strings"
	"time"
)

// row is one line of the results table. floor and ratio are against the floor the scenario is
// judged by; floor2 and ratio2, when set, against a second one (end-to-end scenarios: the bare
// floor they were once compared with).
type row struct {
	scenario, measured, floor, ratio, floor2, ratio2, goal, met, notes string
}

func failedRow(scenario string, err error) row {
	// Pipes and newlines would break the Markdown table.
	msg := strings.NewReplacer("|", "/", "\n", " ").Replace(err.Error())
	if len(msg) > 400 {
		msg = msg[:400] + "..."
	}
	return row{scenario: scenario, measured: "FAILED", floor: "-", ratio: "-", goal: "-", met: "no", notes: msg}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return fmt.Sprintf("%.1f s", d.Seconds())
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	default:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
}

// ratio is measured/floor of the medians, as "1.072x": three decimals, so that a ratio just
// over a goal does not print as the goal itself.
func ratio(measured, floor time.Duration) (float64, string) {
	if floor <= 0 {
		return 0, "-"
	}
	r := float64(measured) / float64(floor)
	return r, fmt.Sprintf("%.3fx", r)
}

// ratioText is the ratio of measured to floor as the table prints it.
func ratioText(measured, floor time.Duration) string {
	_, s := ratio(measured, floor)
	return s
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

// renderReport is the whole output: machine, date, the table and how to read it.
func renderReport(m machine, opts options, rows []row, took time.Duration) string {
	var b strings.Builder
	b.WriteString("# Benchmarks\n\n")
	fmt.Fprintf(&b, "- Date: %s\n", m.date)
	fmt.Fprintf(&b, "- Machine: %d cores (nproc), %s, %s\n", m.nproc, m.cpu, m.kernel)
	fmt.Fprintf(&b, "- Go: %s; Terraform: %s; git: %s\n", m.goVersion, m.terraformVersion, m.gitVersion)
	mode := ""
	if opts.quick {
		mode = " (-quick: smaller B4, B5 and B9)"
	}
	fmt.Fprintf(&b, "- Runs: %d per scenario, %d for the terraform apply scenarios%s; the whole benchmark took %s\n\n",
		opts.runs, opts.e2eRuns, mode, fmtDuration(took))
	b.WriteString("| scenario | measured (median) | floor (median) | ratio | second floor (median) | ratio to it | goal | met? | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.scenario, r.measured, r.floor, r.ratio,
			orDash(r.floor2), orDash(r.ratio2), r.goal, r.met, r.notes)
	}
	b.WriteString("\nEvery server runs on this machine on loopback (MinIO, git http-backend behind basic auth), " +
		"started by internal/testinfra. Measured and floors alternate within each run (their order rotates from run " +
		"to run), so that load from other processes on the machine falls on all of them. The floor of an end-to-end " +
		"scenario is the fair floor: the same configuration written as terraform_data resources carrying the same " +
		"values, resource for resource (the store object, each destination's attributes and files, each promise's " +
		"dependencies, destination objects and placements with the same store paths), so that its ratio is what the " +
		"provider adds to Terraform's own work on that state (the values sit in triggers_replace, which state keeps " +
		"once). The second floor is the bare one for B4 and B5 (terraform_data resources of the same count " +
		"carrying almost none of the values), the fair floor alone for an apply judged against its physical floor, " +
		"and the protocol floor for the applies with nothing scheduled: the same apply with bench/noop, a provider " +
		"of the same schemas that does no work, which is what Terraform and the plugin protocol take for these " +
		"schemas. Peak memory is the largest VmHWM of the provider processes " +
		"(terraform-provider-kratix, polled every 20 ms from /proc) during the apply.\n")
	return b.String()
}
