package rollout

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func utc(text string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParseWindowsErrors(t *testing.T) {
	_, errs := ParseWindows([]Window{
		{Allow: true, Schedule: "0 9 * * 1-5", Duration: time.Hour, TimeZone: "Europe/London"},
		{Schedule: "0 9 * *", Duration: 0, TimeZone: "Mars/Olympus"},
		{Schedule: "CRON_TZ=Europe/Paris 0 9 * * *", Duration: time.Hour},
		{Schedule: "@every 1h", Duration: time.Hour, TimeZone: "Local"},
		{Schedule: "@daily", Duration: time.Hour, TimeZone: "Asia/Tokyo"},
	})
	type got struct {
		Index int
		Field string
	}
	var fields []got
	for _, e := range errs {
		fields = append(fields, got{e.Index, e.Field})
	}
	want := []got{{1, "time_zone"}, {1, "schedule"}, {1, "duration"}, {2, "schedule"}, {3, "time_zone"}, {3, "schedule"}}
	if !reflect.DeepEqual(fields, want) {
		t.Fatalf("errors at %v, want %v (%v)", fields, want, errs)
	}
	for i, part := range []string{
		`window 1: time_zone: unknown time zone "Mars/Olympus"`,
		`window 1: schedule: "0 9 * *" is not a 5-field cron expression`,
		`window 1: duration: must be positive, got 0s`,
		`window 2: schedule: "CRON_TZ=Europe/Paris 0 9 * * *" names a zone: give it in time_zone instead`,
		`window 3: time_zone: "Local" depends on the machine that plans`,
		`window 3: schedule: "@every 1h" has no fixed start times`,
	} {
		if !strings.Contains(errs[i].Error(), part) {
			t.Errorf("error %d = %q, want it to contain %q", i, errs[i].Error(), part)
		}
	}
}

// Windows used below: working hours in London (09:00 to 17:00 local, Monday to Friday, across
// the change to summer time on Sunday 29 March 2026); a lunch freeze inside a daily allow window
// in UTC; an evening window in Tokyo; a Christmas freeze; a window that opens on 29 February.
var (
	londonHours = Window{Allow: true, Schedule: "0 9 * * 1-5", Duration: 8 * time.Hour, TimeZone: "Europe/London"}
	daytime     = Window{Allow: true, Schedule: "0 8 * * *", Duration: 10 * time.Hour}
	lunch       = Window{Schedule: "0 12 * * *", Duration: time.Hour}
	tokyo       = Window{Allow: true, Schedule: "0 22 * * *", Duration: 2 * time.Hour, TimeZone: "Asia/Tokyo"}
	christmas   = Window{Schedule: "0 0 24 12 *", Duration: 48 * time.Hour, TimeZone: "UTC"}
	leapDay     = Window{Allow: true, Schedule: "0 0 29 2 *", Duration: 24 * time.Hour}
	always      = Window{Schedule: "0 * * * *", Duration: 90 * time.Minute}
)

func TestWindowsCheck(t *testing.T) {
	for _, tc := range []struct {
		name    string
		windows []Window
		at      string
		want    WindowCheck
	}{
		{"London, winter: 08:30 GMT is before the window", []Window{londonHours}, "2026-03-27T08:30:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-03-27T09:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "Europe/London"}}},
		{"London, winter: 09:00 GMT opens it", []Window{londonHours}, "2026-03-27T09:00:00Z", WindowCheck{Open: true}},
		{"London, winter: a second before", []Window{londonHours}, "2026-03-27T08:59:59.999Z",
			WindowCheck{Opens: Opening{At: utc("2026-03-27T09:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "Europe/London"}}},
		{"London, winter: 16:59:59 is the last second", []Window{londonHours}, "2026-03-27T16:59:59Z", WindowCheck{Open: true}},
		{"London, the weekend of the change: it opens on Monday at 09:00 BST, 08:00 UTC", []Window{londonHours}, "2026-03-27T17:00:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-03-30T08:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "Europe/London"}}},
		{"London, summer: 08:30 UTC is 09:30 BST, open", []Window{londonHours}, "2026-03-30T08:30:00Z", WindowCheck{Open: true}},
		{"London, summer: 16:00 UTC is 17:00 BST, closed until Tuesday", []Window{londonHours}, "2026-03-30T16:00:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-03-31T08:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "Europe/London"}}},
		{"a deny window inside an allow window: closed at lunch, open when it ends", []Window{daytime, lunch}, "2026-11-27T12:30:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-11-27T13:00:00Z"), Found: true, Index: 1, Zone: "UTC"}}},
		{"a deny window inside an allow window: open before lunch", []Window{daytime, lunch}, "2026-11-27T11:59:00Z", WindowCheck{Open: true}},
		{"a deny window inside an allow window: after the day, the next morning", []Window{daytime, lunch}, "2026-11-27T18:00:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-11-28T08:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "UTC"}}},
		{"Tokyo: 22:00 JST is 13:00 UTC", []Window{tokyo}, "2026-11-27T12:00:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-11-27T13:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "Asia/Tokyo"}}},
		{"Tokyo: open across local midnight", []Window{tokyo}, "2026-11-27T14:59:00Z", WindowCheck{Open: true}},
		{"a freeze alone: closed on Christmas Day, open on the 26th", []Window{christmas}, "2026-12-25T10:00:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-12-26T00:00:00Z"), Found: true, Index: 0, Zone: "UTC"}}},
		{"a freeze over working hours: it opens on the first working day after it", []Window{londonHours, christmas}, "2026-12-24T10:00:00Z",
			WindowCheck{Opens: Opening{At: utc("2026-12-28T09:00:00Z"), Found: true, Index: 0, Allow: true, Zone: "Europe/London"}}},
		{"a freeze alone, outside it: open", []Window{christmas}, "2026-12-23T23:59:59Z", WindowCheck{Open: true}},
		{"a leap day is not within a year", []Window{leapDay}, "2026-03-01T00:00:00Z", WindowCheck{}},
		{"a deny window that always covers: never open", []Window{daytime, always}, "2026-11-27T10:00:00Z", WindowCheck{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws, errs := ParseWindows(tc.windows)
			if errs != nil {
				t.Fatal(errs)
			}
			at := utc(tc.at)
			got := ws.Check(at)
			if got.Open != tc.want.Open || got.Opens.Found != tc.want.Opens.Found || !got.Opens.At.Equal(tc.want.Opens.At) ||
				got.Opens.Index != tc.want.Opens.Index || got.Opens.Allow != tc.want.Opens.Allow || got.Opens.Zone != tc.want.Opens.Zone {
				t.Errorf("Check(%s) = %+v, want %+v", tc.at, got, tc.want)
			}
			if ws.Open(at) != tc.want.Open {
				t.Errorf("Open(%s) = %v", tc.at, !tc.want.Open)
			}
		})
	}
}

// TestStageOutsideWindows: outside the windows nothing of the rollout advances, a destination
// new here still gets the completed revision, and the plan says when the windows open.
func TestStageOutsideWindows(t *testing.T) {
	friday := utc("2026-11-27T18:00:00Z")
	in := StageInput{Policy: Policy{Waves: stageWaves, MinWait: time.Hour, Windows: []Window{londonHours}},
		Status:   Status{Completed: "r1", Target: "r2", WavesDone: 1, LastWave: utc("2026-11-27T10:00:00Z")},
		Revision: "r2", Prior: "r2", Scheduled: stageFleet("p5"), Revisions: revs("r1", "r2=c1"), Present: intact(),
		Staged: true, BaseKnown: true, Now: friday}
	s := Stage(in)
	if want := revs("r1", "r2=c1", "r1=p5"); !reflect.DeepEqual(s.Give, want) {
		t.Fatalf("Give = %v, want %v", s.Give, want)
	}
	if s.Step.Advanced || s.Step.Halt != HaltClosed || !s.Step.NotBefore.Equal(utc("2026-11-30T09:00:00Z")) || s.Step.Status != in.Status {
		t.Fatalf("step: %+v", s.Step)
	}
	want := "Promise \"p\" rolls out revision r2 (the fleet held r1).\n\n" +
		"New here, these get r1, the revision that last went everywhere: p5.\n" +
		"Waiting (they keep what they hold): d1, d2, d3, p1, p2, p3, p4, p5.\n" +
		"Outside the rollout's windows: it opens at 2026-11-30T09:00:00Z (allow window 0, Europe/London). Next wave: \"dev\", at an apply from then."
	if got := s.Message("p"); got != want {
		t.Fatalf("Message:\n%s\nwant:\n%s", got, want)
	}
	if got := s.Report(Report{}); got.NextWaveNotBefore != (Stamp{Text: "2026-11-30T09:00:00Z"}) {
		t.Fatalf("next wave not before %+v", got.NextWaveNotBefore)
	}
	// A rollout's first wave waits for the windows too.
	first := in
	first.Status, first.Revisions, first.Prior = Status{Completed: "r1"}, revs("r1"), "r1"
	if s := Stage(first); s.Step.Advanced || s.Step.Halt != HaltClosed || s.Step.Status != (Status{Completed: "r1", Target: "r2"}) {
		t.Fatalf("first wave outside the windows: %+v", s.Step)
	}
	// Monday 09:00 London: the dev wave goes.
	in.Now = utc("2026-11-30T09:00:00Z")
	if s := Stage(in); !s.Step.Advanced || s.Step.Wrote != 1 || s.Step.Window == nil || !s.Step.Window.Open {
		t.Fatalf("inside the window: %+v", s.Step)
	}
	// Windows that never open within a year.
	in.Policy.Windows = []Window{leapDay}
	if got := Stage(in).Message("p"); !strings.HasSuffix(got, "\nOutside the rollout's windows: they do not open within a year. Wave \"dev\" waits.") {
		t.Fatalf("Message:\n%s", got)
	}
}
