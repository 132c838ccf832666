package main

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// recording returns n series named a, b, c, ... whose runs write "<name><run>" to order, and
// fail when fail names them (as "b1": series b, run 1).
func recording(n int, order *[]string, fail string) []*series {
	all := make([]*series, n)
	for k := range all {
		name := string(rune('a' + k))
		all[k] = &series{run: func(i int) (sample, error) {
			id := fmt.Sprintf("%s%d", name, i)
			*order = append(*order, id)
			if id == fail {
				return sample{took: time.Duration(i+1) * time.Second}, errors.New("failed " + id)
			}
			return sample{took: time.Duration(i+1) * time.Second}, nil
		}}
	}
	return all
}

// TestMeasureAlternatesAndRotates: in run i the series go in their order rotated by i, so the
// first goes first in run 0 and, with two, the measured command and its floor swap places each
// run; with three or more each takes each place in turn.
func TestMeasureAlternatesAndRotates(t *testing.T) {
	for _, tc := range []struct {
		name         string
		series, runs int
		want         string
	}{
		{"one series", 1, 3, "a0 a1 a2"},
		{"measured and its floor (B3 store, B9 plan)", 2, 4, "a0 b0 b1 a1 a2 b2 b3 a3"},
		{"three (B4, B7 with observe)", 3, 4, "a0 b0 c0 b1 c1 a1 c2 a2 b2 a3 b3 c3"},
		{"five (B2 and B3 e2e)", 5, 3, "a0 b0 c0 d0 e0 b1 c1 d1 e1 a1 c2 d2 e2 a2 b2"},
		{"one run", 3, 1, "a0 b0 c0"},
	} {
		var order []string
		all := recording(tc.series, &order, "")
		if err := measure(tc.runs, all...); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Join(order, " "); got != tc.want {
			t.Errorf("%s: order %q, want %q", tc.name, got, tc.want)
		}
		for k, s := range all {
			if len(s.samples) != tc.runs {
				t.Errorf("%s: series %d has %d samples, want %d", tc.name, k, len(s.samples), tc.runs)
			}
			// Samples are kept in run order, whatever place the series took in each run.
			for i, x := range s.samples {
				if x.took != time.Duration(i+1)*time.Second {
					t.Errorf("%s: series %d sample %d took %s, want %s", tc.name, k, i, x.took, time.Duration(i+1)*time.Second)
				}
			}
		}
	}
}

// TestMeasureStopsAtTheFirstError: the loop runs nothing after a failed run, returns its error,
// keeps its sample, and logs it.
func TestMeasureStopsAtTheFirstError(t *testing.T) {
	var order []string
	all := recording(3, &order, "b1")
	var logged []time.Duration
	all[1].log = func(s sample) { logged = append(logged, s.took) }
	err := measure(4, all...)
	if err == nil || err.Error() != "failed b1" {
		t.Fatalf("err = %v, want failed b1", err)
	}
	if got, want := strings.Join(order, " "), "a0 b0 c0 b1"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if got := [3]int{len(all[0].samples), len(all[1].samples), len(all[2].samples)}; got != [3]int{1, 2, 1} {
		t.Errorf("samples per series %v, want [1 2 1]", got)
	}
	if fmt.Sprint(logged) != "[1s 2s]" {
		t.Errorf("logged %v, want [1s 2s]", logged)
	}
}

// TestSeriesFigures: the median is the middle run, or the mean of the two middle ones; peaks are
// the largest over the runs; the counts are the largest of each kind, which may come from
// different runs; times, CPU times and notes stay in run order.
func TestSeriesFigures(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		name   string
		took   []time.Duration
		median time.Duration
		times  string
	}{
		{"odd", []time.Duration{500 * ms, 100 * ms, 300 * ms, 900 * ms, 200 * ms}, 300 * ms, "500 ms, 100 ms, 300 ms, 900 ms, 200 ms"},
		{"even", []time.Duration{4 * time.Second, 1 * time.Second, 3 * time.Second, 2 * time.Second}, 2500 * ms, "4.00 s, 1.00 s, 3.00 s, 2.00 s"},
		{"one", []time.Duration{12 * time.Second}, 12 * time.Second, "12.0 s"},
		{"two", []time.Duration{100 * ms, 301 * ms}, 200500 * time.Microsecond, "100 ms, 301 ms"},
		{"none", nil, 0, ""},
	} {
		s := &series{}
		for _, d := range tc.took {
			s.samples = append(s.samples, sample{took: d})
		}
		if got := s.median(); got != tc.median {
			t.Errorf("%s: median %s, want %s", tc.name, got, tc.median)
		}
		if got := s.times().String(); got != tc.times {
			t.Errorf("%s: times %q, want %q", tc.name, got, tc.times)
		}
	}

	s := &series{samples: []sample{
		{took: time.Second, peakMiB: 80, note: "20",
			use:    fleetUsage{providerMiB: 300, terraformMiB: 900, providerCPU: 4 * time.Second, terraformCPU: 9 * time.Second},
			counts: s3Counts{Gets: 2, Lists: 3, Listings: 1, Other: 1, OtherKinds: map[string]int{"GET bucket?location": 1}, Listed: map[string]int{"b/": 1}}},
		{took: 2 * time.Second, peakMiB: 120, note: "18",
			use:    fleetUsage{providerMiB: 250, terraformMiB: 1000, providerCPU: 5 * time.Second, terraformCPU: 8 * time.Second},
			counts: s3Counts{Puts: 1, Lists: 2, Listings: 2, Listed: map[string]int{"b/": 1, "b/health/": 1}}},
		{took: 3 * time.Second, peakMiB: 100, note: "23"},
	}}
	if got := s.peakMiB(); got != 120 {
		t.Errorf("peakMiB %v, want 120", got)
	}
	if got := s.peaks(); got != (fleetUsage{providerMiB: 300, terraformMiB: 1000}) {
		t.Errorf("peaks %+v, want provider 300 MiB, terraform 1000 MiB and no CPU", got)
	}
	if got := s.providerCPU().String(); got != "4.00 s, 5.00 s, 0 ms" {
		t.Errorf("providerCPU %q", got)
	}
	if got := s.terraformCPU().String(); got != "9.00 s, 8.00 s, 0 ms" {
		t.Errorf("terraformCPU %q", got)
	}
	if got := s.notes(); got != "20, 18, 23" {
		t.Errorf("notes %q, want \"20, 18, 23\"", got)
	}
	c := s.counts()
	if got, want := c.String(), "1 PUT, 2 GET, 0 HEAD, 3 LIST (2 listings), 1 other (1 GET bucket?location)"; got != want {
		t.Errorf("counts %q, want %q", got, want)
	}
	if got, want := c.listedText(), "1 b/ + 1 b/health/"; got != want {
		t.Errorf("listed %q, want %q", got, want)
	}
}

// TestCountedCountsTheRunOnly: a counted run gets the S3 requests that went through the proxy
// while it ran, not those before it, and leaves the proxy at zero.
func TestCountedCountsTheRunOnly(t *testing.T) {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer upstream.Close()
	proxy, err := startCountingProxy(strings.TrimPrefix(upstream.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.stop()
	do := func(method, path string) {
		req, err := http.NewRequest(method, "http://"+proxy.Endpoint+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	do(http.MethodPut, "/b/before.yaml") // before the run: not its own
	run := counted(proxy, func(int) (sample, error) {
		do(http.MethodPut, "/b/x.yaml")
		do(http.MethodGet, "/b/x.yaml")
		do(http.MethodGet, "/b/?list-type=2&prefix=health/")
		return sample{took: time.Second}, nil
	})
	got, err := run(0)
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 PUT, 1 GET, 0 HEAD, 1 LIST (1 listings), 0 other"; got.counts.String() != want || got.took != time.Second {
		t.Errorf("counted run: %s in %s, want %s in 1s", got.counts, got.took, want)
	}
	if got.counts.listedText() != "1 b/health/" {
		t.Errorf("listed %q, want \"1 b/health/\"", got.counts.listedText())
	}
	if left := proxy.reset(); left.String() != "0 PUT, 0 GET, 0 HEAD, 0 LIST (0 listings), 0 other" {
		t.Errorf("proxy after the run: %s, want nothing", left)
	}
}

// TestWatchedSeesTheRun: a watched run gets what the watcher saw of the process working in its
// folder (a busy shell standing in for terraform), and keeps its own time.
func TestWatchedSeesTheRun(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	if sh, err = filepath.EvalSymlinks(sh); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	e := &env{providerBin: "/nonexistent/terraform-provider-kratix", terraform: sh}
	run := watched(e, dir, func(int) (sample, error) {
		cmd := exec.Command(sh, "-c", `i=0; while [ $i -lt 100000 ]; do i=$((i+1)); done`)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return sample{}, fmt.Errorf("busy loop: %v: %s", err, out)
		}
		return sample{took: time.Second}, nil
	})
	got, err := run(0)
	if err != nil {
		t.Fatal(err)
	}
	if got.took != time.Second || got.use.terraformMiB <= 0 || got.use.terraformCPU <= 0 || got.use.providerMiB != 0 {
		t.Errorf("watched run: took %s, use %+v; want 1s, the shell's memory and CPU above 0 and no provider", got.took, got.use)
	}
}
