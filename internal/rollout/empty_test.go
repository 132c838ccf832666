package rollout

import (
	"reflect"
	"testing"
)

func TestEmptyWaves(t *testing.T) {
	typo := []Wave{{Name: "canary", Selector: env("canry")}, {Name: "prod", Selector: env("prod")}, {Name: "rest"}}
	for _, tc := range []struct {
		name      string
		waves     []Wave
		scheduled []Destination
		want      []EmptyWave
	}{
		{
			name: "a misspelt label: the canary wave matches nothing", waves: typo,
			scheduled: stageFleet(),
			want:      []EmptyWave{{Index: 0, Name: "canary"}},
		},
		{
			name: "every wave takes a destination: none reported", waves: stageWaves,
			scheduled: stageFleet(),
		},
		{
			name:      "the last wave with nothing left: reported, its selectors match every destination earlier waves took",
			waves:     []Wave{{Name: "all", Selector: env("prod")}, {Name: "rest"}},
			scheduled: []Destination{{Name: "p1", Labels: map[string]string{"env": "prod"}}, {Name: "p2", Labels: map[string]string{"env": "prod"}}},
			want:      []EmptyWave{{Index: 1, Name: "rest", Matching: 2}},
		},
		{
			name:      "a wave whose destinations an earlier one took: Matching counts them",
			waves:     []Wave{{Name: "first", Selector: env("dev")}, {Name: "again", Selector: env("dev")}, {Name: "rest"}},
			scheduled: stageFleet(),
			want:      []EmptyWave{{Index: 1, Name: "again", Matching: 3}},
		},
		{
			name: "nothing scheduled: nothing reported", waves: typo,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := EmptyWaves(tc.waves, tc.scheduled); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("EmptyWaves = %+v, want %+v", got, tc.want)
			}
		})
	}
}
