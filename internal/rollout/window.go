package rollout

import (
	"errors"
	"fmt"
	"strings"
	"time"
	// The zone database, for the machines that have none of their own: Windows, and runners
	// without /usr/share/zoneinfo. Without it, time_zone would be refused there whatever it names.
	_ "time/tzdata"

	"github.com/robfig/cron/v3"
)

// Window is a span of time, recurring on a schedule, in which a rollout may advance (Allow) or
// may not (a deny window).
type Window struct {
	Allow bool
	// Schedule is a 5-field cron expression (minute hour day-of-month month day-of-week), or a
	// descriptor such as @daily, for the times the window starts.
	Schedule string
	// Duration is how long the window stays open after each start.
	Duration time.Duration
	// TimeZone is the IANA zone Schedule is read in ("": UTC).
	TimeZone string
}

// WindowError says what is wrong with one window: Field is "schedule", "time_zone" or "duration",
// so that the caller can attach it to rollout.windows[Index].<Field>.
type WindowError struct {
	Index int
	Field string
	Err   error
}

func (e WindowError) Error() string {
	return fmt.Sprintf("window %d: %s: %v", e.Index, e.Field, e.Err)
}

func (e WindowError) Unwrap() error { return e.Err }

// window is a Window whose schedule and zone are parsed.
type window struct {
	Window
	index    int
	schedule *cron.SpecSchedule
}

// Windows are a rollout's windows, parsed once (see ParseWindows). The zero value has none: the
// rollout is always open.
type Windows struct {
	list []window
}

// windowParser reads the standard 5-field cron expressions and descriptors.
var windowParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ParseWindows parses a rollout's windows. It returns every error it finds, by window, in order.
func ParseWindows(ws []Window) (Windows, []WindowError) {
	var out Windows
	var errs []WindowError
	for i, w := range ws {
		parsed, err := parseWindow(i, w)
		if err != nil {
			errs = append(errs, err...)
			continue
		}
		out.list = append(out.list, parsed)
	}
	if len(errs) > 0 {
		return Windows{}, errs
	}
	return out, nil
}

func parseWindow(i int, w Window) (window, []WindowError) {
	var errs []WindowError
	fail := func(field string, err error) { errs = append(errs, WindowError{Index: i, Field: field, Err: err}) }
	loc, err := loadZone(w.TimeZone)
	if err != nil {
		fail("time_zone", err)
	}
	spec, err := parseSchedule(w.Schedule)
	if err != nil {
		fail("schedule", err)
	}
	if w.Duration <= 0 {
		fail("duration", fmt.Errorf("must be positive, got %s", w.Duration))
	}
	if len(errs) > 0 {
		return window{}, errs
	}
	spec.Location = loc
	return window{Window: w, index: i, schedule: spec}, nil
}

// loadZone loads an IANA zone; "" is UTC. "Local" is refused: the machine's zone would make the
// windows differ from one machine to the next.
func loadZone(name string) (*time.Location, error) {
	if name == "Local" {
		return nil, errors.New(`"Local" depends on the machine that plans; name an IANA zone such as "Europe/London"`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: %w", name, err)
	}
	return loc, nil
}

// parseSchedule parses a schedule of start times. A zone prefix is refused (time_zone says the
// zone), and so is @every, which names no start times.
func parseSchedule(text string) (*cron.SpecSchedule, error) {
	trimmed := strings.TrimSpace(text)
	if strings.HasPrefix(trimmed, "TZ=") || strings.HasPrefix(trimmed, "CRON_TZ=") {
		return nil, fmt.Errorf("%q names a zone: give it in time_zone instead", text)
	}
	sched, err := windowParser.Parse(trimmed)
	if err != nil {
		return nil, fmt.Errorf("%q is not a 5-field cron expression: %w", text, err)
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return nil, fmt.Errorf("%q has no fixed start times: use a cron expression", text)
	}
	return spec, nil
}

// zone is the window's zone as a message names it.
func (w window) zone() string {
	if w.TimeZone == "" {
		return "UTC"
	}
	return w.TimeZone
}

// covers reports whether the window is open at t: some start s has t-Duration < s <= t.
func (w window) covers(t time.Time) bool {
	s := w.schedule.Next(t.Add(-w.Duration))
	return !s.IsZero() && !s.After(t)
}

// coverEnd is when the start of the window that covers t last ends: its latest start at or
// before t, plus Duration. Later starts may cover that time again (the caller looks again).
func (w window) coverEnd(t time.Time) time.Time {
	s := w.schedule.Next(t.Add(-w.Duration))
	for {
		n := w.schedule.Next(s)
		if n.IsZero() || n.After(t) {
			return s.Add(w.Duration)
		}
		s = n
	}
}

// Open reports whether a rollout may advance at t: inside some allow window (or there is none)
// and inside no deny window.
func (ws Windows) Open(t time.Time) bool {
	_, denied := ws.denied(t)
	return !denied && ws.allowed(t)
}

func (ws Windows) allowed(t time.Time) bool {
	some := false
	for _, w := range ws.list {
		if w.Allow {
			some = true
			if w.covers(t) {
				return true
			}
		}
	}
	return !some
}

// denied is the deny window that covers t longest, if any, and when it stops covering t.
func (ws Windows) denied(t time.Time) (window, bool) {
	var found window
	var end time.Time
	ok := false
	for _, w := range ws.list {
		if !w.Allow && w.covers(t) {
			if e := w.coverEnd(t); !ok || e.After(end) {
				found, end, ok = w, e, true
			}
		}
	}
	return found, ok
}

// Opening says when a closed rollout opens, and which window opens it.
type Opening struct {
	// At is the earliest time after the check at which the rollout is open; zero when it does
	// not open within a year (Found is false).
	At    time.Time
	Found bool
	// Index is the window whose start (an allow window) or end (a deny window) opens it; Allow
	// says which, Zone its time zone.
	Index int
	Allow bool
	Zone  string
}

// WindowCheck is what the windows say at the time of a plan.
type WindowCheck struct {
	Open bool
	// Opens says when a closed rollout opens.
	Opens Opening
}

// searchHorizon bounds the search for the time a closed rollout opens.
const searchHorizon = 366 * 24 * time.Hour

// Check says whether the rollout is open at now, and when closed, when it opens: the earliest
// time after now at which it is open, within a year.
//
// The times the rollout is open are a union of spans that each include their start, so the
// earliest is a start of an allow window or an end of a deny window. From a time that is
// closed, the search goes to the end of the deny window that covers it, or else (outside every
// allow window) to the next start of an allow window, and looks again.
func (ws Windows) Check(now time.Time) WindowCheck {
	if ws.Open(now) {
		return WindowCheck{Open: true}
	}
	limit := now.Add(searchHorizon)
	t := now
	var by Opening
	for !t.After(limit) {
		if t.After(now) && ws.Open(t) {
			by.At, by.Found = t, true
			return WindowCheck{Opens: by}
		}
		if w, ok := ws.denied(t); ok {
			t = w.coverEnd(t)
			by = Opening{Index: w.index, Zone: w.zone()}
			continue
		}
		next, w, ok := ws.nextAllowStart(t)
		if !ok {
			break
		}
		t = next
		by = Opening{Index: w.index, Allow: true, Zone: w.zone()}
	}
	return WindowCheck{}
}

// nextAllowStart is the earliest start of an allow window after t.
func (ws Windows) nextAllowStart(t time.Time) (time.Time, window, bool) {
	var best time.Time
	var by window
	ok := false
	for _, w := range ws.list {
		if !w.Allow {
			continue
		}
		if s := w.schedule.Next(t); !s.IsZero() && (!ok || s.Before(best)) {
			best, by, ok = s, w, true
		}
	}
	return best, by, ok
}
