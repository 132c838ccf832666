package main

import (
	"slices"
	"strings"
	"time"
)

// The measuring loop every scenario runs. A scenario is a measured command and its floors, each a
// series; measure runs each series once per run, in an order that rotates from run to run, so that
// a drift of the machine's load (other tenants, MinIO's compactions, the page cache) falls on every
// series alike and their medians stay comparable within one run. What a run gives (its time, the
// provider's peak memory, the S3 requests through the counting proxy, what the watcher saw) is kept
// per run, and the series' methods give the medians, peaks and counts the rows print.

// sample is what one run of one series gave.
type sample struct {
	took    time.Duration
	peakMiB float64    // the provider's peak RSS, when the command watched it (tfResult.peakMiB)
	use     fleetUsage // the provider's and terraform's peak RSS and CPU time, when watched (see watched)
	counts  s3Counts   // the S3 requests, when counted through the proxy (see counted)
	note    string     // a figure of the run that the notes give beside its time (pushes, bytes fetched)
}

// series is one side of a scenario: the measured command or one of its floors. run does run i
// (i names the run's bucket, repository or workspace); log, when set, is told every sample as it
// comes. After measure, samples holds what each run gave, in run order.
type series struct {
	run     func(i int) (sample, error)
	log     func(sample)
	samples []sample
}

// measure runs every series once per run. In run i they go in their given order rotated by i:
// with two, the first one first on even runs and last on odd ones; with three, each takes each
// place in turn. So the first series goes first in run 0 (B9's raw floor needs what its first
// apply wrote). It stops at the first error and returns it; the sample of the failed run is kept.
func measure(runs int, all ...*series) error {
	n := len(all)
	for i := range runs {
		for j := range n {
			s := all[(i+j)%n]
			got, err := s.run(i)
			s.samples = append(s.samples, got)
			if s.log != nil {
				s.log(got)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// times are the runs' durations, in run order.
func (s *series) times() timings {
	t := make(timings, len(s.samples))
	for i, x := range s.samples {
		t[i] = x.took
	}
	return t
}

// median is the median of the runs' durations.
func (s *series) median() time.Duration { return s.times().median() }

// peakMiB is the provider's largest peak RSS over the runs.
func (s *series) peakMiB() float64 {
	var peak float64
	for _, x := range s.samples {
		peak = max(peak, x.peakMiB)
	}
	return peak
}

// counts is the worst run's S3 requests: the largest count of each kind over the runs.
func (s *series) counts() s3Counts {
	var worst s3Counts
	for _, x := range s.samples {
		worst = maxCounts(worst, x.counts)
	}
	return worst
}

// peaks are the largest peak RSS of the provider and of terraform over the watched runs (the
// CPU times, per run, are providerCPU and terraformCPU).
func (s *series) peaks() fleetUsage {
	var u fleetUsage
	for _, x := range s.samples {
		u.providerMiB, u.terraformMiB = max(u.providerMiB, x.use.providerMiB), max(u.terraformMiB, x.use.terraformMiB)
	}
	return u
}

// providerCPU is the provider's CPU time in each watched run.
func (s *series) providerCPU() timings {
	t := make(timings, len(s.samples))
	for i, x := range s.samples {
		t[i] = x.use.providerCPU
	}
	return t
}

// terraformCPU is terraform's CPU time in each watched run.
func (s *series) terraformCPU() timings {
	t := make(timings, len(s.samples))
	for i, x := range s.samples {
		t[i] = x.use.terraformCPU
	}
	return t
}

// notes are the runs' notes, in run order, as "a, b, c".
func (s *series) notes() string {
	parts := make([]string, len(s.samples))
	for i, x := range s.samples {
		parts[i] = x.note
	}
	return strings.Join(parts, ", ")
}

// timed is a run that gives its time alone.
func timed(run func(i int) (time.Duration, error)) func(i int) (sample, error) {
	return func(i int) (sample, error) {
		d, err := run(i)
		return sample{took: d}, err
	}
}

// command is a run of one terraform command: its time and, when it watched it, the provider's
// peak RSS.
func command(run func(i int) (tfResult, error)) func(i int) (sample, error) {
	return func(i int) (sample, error) {
		res, err := run(i)
		return sample{took: res.took, peakMiB: res.peakMiB}, err
	}
}

// counted adds to a run the S3 requests that went through proxy while it ran.
func counted(proxy *countingProxy, run func(i int) (sample, error)) func(i int) (sample, error) {
	return func(i int) (sample, error) {
		proxy.reset()
		got, err := run(i)
		got.counts = proxy.reset()
		return got, err
	}
}

// watched adds to a run what the fleet watcher saw of the provider and of the terraform process
// working in dir while it ran.
func watched(e *env, dir string, run func(i int) (sample, error)) func(i int) (sample, error) {
	return func(i int) (sample, error) {
		w := e.watchFleet(dir)
		got, err := run(i)
		got.use = w.stop()
		return got, err
	}
}

// timings are the durations of the runs of one measurement.
type timings []time.Duration

// median is the middle run (the mean of the two middle runs for an even count): it ignores the
// odd run slowed by the other tenants of this machine, where a mean would not.
func (t timings) median() time.Duration {
	if len(t) == 0 {
		return 0
	}
	s := slices.Clone(t)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (t timings) String() string {
	parts := make([]string, len(t))
	for i, d := range t {
		parts[i] = fmtDuration(d)
	}
	return strings.Join(parts, ", ")
}
