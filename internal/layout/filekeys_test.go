package layout

import (
	"strings"
	"testing"
)

func TestNormaliseFileKey(t *testing.T) {
	tests := []struct {
		key, want string
		err       string // a part of the error; "" when the key is accepted
	}{
		{"a.yaml", "a.yaml", ""},
		{"sub/dir/b.yaml", "sub/dir/b.yaml", ""},
		{"./a.yaml", "a.yaml", ""},
		{"a//b", "a/b", ""},
		{"a/./b", "a/b", ""},
		{".hidden.yaml", ".hidden.yaml", ""},
		{"..a.yaml", "..a.yaml", ""}, // a name that starts with dots is not ".."
		{"", "", `file key "" is empty`},
		{".", "", `file key "." names the output folder itself`},
		{"/", "", `file key "/" names the output folder itself`},
		{"./", "", `file key "./" names the output folder itself`},
		{"/.", "", `file key "/." names the output folder itself`},
		{"a/", "", `file key "a/" ends in "/", so it names a folder; name a file instead, such as "a/app.yaml"`},
		{"sub/dir/", "", `ends in "/"`},
		{"/etc/passwd", "", `file key "/etc/passwd" starts with "/"; give it relative to the pipeline's output folder, as in "etc/passwd"`},
		{"//a.yaml", "", `starts with "/"`},
		{"..", "", `file key ".." contains ".."`},
		{"../a.yaml", "", `contains ".."`},
		{"a/../../b", "", `contains ".."`},
		{"a/..", "", `names the output folder itself`},
		{"a/../b.yaml", "b.yaml", ""},
		{`a\b.yaml`, "", `file key "a\\b.yaml" contains a backslash; separate folders with "/", as in "a/b.yaml"`},
		{`..\a.yaml`, "", "contains a backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			got, err := NormaliseFileKey(tt.key)
			if tt.err == "" {
				if err != nil || got != tt.want {
					t.Errorf("NormaliseFileKey(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("NormaliseFileKey(%q) = %q, %v; want an error with %q", tt.key, got, err, tt.err)
			}
		})
	}
}

func TestCheckRequestFiles(t *testing.T) {
	type want struct{ key, msg string } // msg: a part of the message
	tests := []struct {
		name string
		keys []string
		want []want
	}{
		{"ordinary files", []string{"a.yaml", "sub/dir/b.yaml", "static/readme.md", "resources/app.yaml", "crds/my-crd.yaml", "dependencies/x.yaml"}, nil},
		{"names near the reserved ones", []string{
			"static/-dependencies.yaml", "static/sub/x-dependencies.yaml", "x/static/a-dependencies.yaml",
			"crds/00-crds.yaml", "crds/01-x-crds.yaml", "resources/00-x-resources.yaml", "resources/01-resources.yaml",
			"kratix/x.yaml", ".kratix-notes/x", "x.kratix", "sub/kratix-canary-namespace.yaml", ".gitignore", ".github/x.yaml",
		}, nil},
		{"empty", []string{""}, []want{{"", `File key "" is empty; name a file relative to the pipeline's output folder, such as "app.yaml".`}}},
		{"dot", []string{"."}, []want{{".", `File key "." names the output folder itself`}}},
		{"slash", []string{"/"}, []want{{"/", `File key "/" names the output folder itself`}}},
		{"trailing slash", []string{"a/"}, []want{{"a/", `File key "a/" ends in "/"`}}},
		{"absolute", []string{"/a.yaml"}, []want{{"/a.yaml", `File key "/a.yaml" starts with "/"`}}},
		{"dot dot", []string{"../a.yaml"}, []want{{"../a.yaml", `File key "../a.yaml" contains ".."`}}},
		{"backslash", []string{`a\b`}, []want{{`a\b`, "contains a backslash"}}},

		{"same file, ./", []string{"a.yaml", "./a.yaml"}, []want{{"./a.yaml", `File key "./a.yaml" names the same file as "a.yaml" (both mean "a.yaml"); keep only one of them.`}}},
		{"same file, //", []string{"a//b", "a/b"}, []want{{"a//b", `File key "a//b" names the same file as "a/b"`}}},
		{"same file, /./", []string{"a/./b", "a/b"}, []want{{"a/./b", `File key "a/./b" names the same file as "a/b"`}}},
		{"same file, no clean spelling", []string{"./a/b", "a//b"}, []want{{"a//b", `File key "a//b" names the same file as "./a/b" (both mean "a/b")`}}},
		{"same file, three spellings", []string{"x/y", "./x/y", "x//y"}, []want{
			{"./x/y", `File key "./x/y" names the same file as "x/y"`},
			{"x//y", `File key "x//y" names the same file as "x/y"`},
		}},
		{"a key given twice is one key", []string{"a.yaml", "a.yaml"}, nil},

		{"aggregate parts folder", []string{".kratix-aggregates/w/aggregated.yaml/x.part"}, []want{{".kratix-aggregates/w/aggregated.yaml/x.part", `reaches ".kratix-aggregates/"`}}},
		{"index folder", []string{".kratix/x"}, []want{{".kratix/x", `File key ".kratix/x" reaches ".kratix/", the folder where Kratix records what each placement wrote`}}},
		{"index folder, ./", []string{"./.kratix/x"}, []want{{"./.kratix/x", `reaches ".kratix/"`}}},
		{"index folder, nested", []string{"sub/.kratix/x.yaml"}, []want{{"sub/.kratix/x.yaml", `reaches ".kratix/"`}}},
		{"index folder itself as a file", []string{".kratix"}, []want{{".kratix", `reaches ".kratix/"`}}},
		{"git folder", []string{".git/config"}, []want{{".git/config", `File key ".git/config" reaches ".git"`}}},
		{"git folder, other case", []string{"sub/.GIT/hooks/x"}, []want{{"sub/.GIT/hooks/x", `reaches ".git"`}}},

		{"canary none namespace", []string{"kratix-canary-namespace.yaml"}, []want{{"kratix-canary-namespace.yaml", `File key "kratix-canary-namespace.yaml" is the name of a Kratix canary file`}}},
		{"canary none configmap", []string{"./kratix-canary-configmap.yaml"}, []want{{"./kratix-canary-configmap.yaml", "canary file"}}},
		{"canary nested namespace", []string{"dependencies/kratix-canary-namespace.yaml"}, []want{{"dependencies/kratix-canary-namespace.yaml", "canary file"}}},
		{"canary nested configmap", []string{"resources/kratix-canary-configmap.yaml"}, []want{{"resources/kratix-canary-configmap.yaml", "canary file"}}},
		{"canary splitByKind crds", []string{"crds/kratix-crds.yaml"}, []want{{"crds/kratix-crds.yaml", "canary file"}}},
		{"canary splitByKind resources", []string{"resources//kratix-resources.yaml"}, []want{{"resources//kratix-resources.yaml", "canary file"}}},

		{"promise dependencies", []string{"static/jenkins-dependencies.yaml"}, []want{{"static/jenkins-dependencies.yaml", `File key "static/jenkins-dependencies.yaml" is where a promise's dependencies go (static/<promise>-dependencies.yaml)`}}},
		{"promise dependencies, ./", []string{"./static/x-dependencies.yaml"}, []want{{"./static/x-dependencies.yaml", "a promise's dependencies"}}},
		{"splitByKind crds", []string{"crds/00-default-jenkins-default-crds.yaml"}, []want{{"crds/00-default-jenkins-default-crds.yaml", "where splitByKind puts a placement's CustomResourceDefinitions (crds/00-<work>-crds.yaml)"}}},
		{"splitByKind resources", []string{"resources/01-default-jenkins-default-resources.yaml"}, []want{{"resources/01-default-jenkins-default-resources.yaml", "where splitByKind puts a placement's documents (resources/01-<work>-resources.yaml)"}}},

		{"sorted by key, one error each", []string{"z/", "./.kratix/a", "b.yaml", "./b.yaml", "", "ok.yaml"}, []want{
			{"", "is empty"},
			{"./.kratix/a", `reaches ".kratix/"`},
			{"./b.yaml", `names the same file as "b.yaml"`},
			{"z/", `ends in "/"`},
		}},
		{"a refused key does not also collide", []string{".kratix/x", "./.kratix/x"}, []want{
			{"./.kratix/x", `reaches ".kratix/"`},
			{".kratix/x", `reaches ".kratix/"`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckRequestFiles(tt.keys)
			if len(got) != len(tt.want) {
				t.Fatalf("CheckRequestFiles(%q) = %v, want %d errors", tt.keys, got, len(tt.want))
			}
			for i, w := range tt.want {
				if got[i].Key != w.key || !strings.Contains(got[i].Message, w.msg) {
					t.Errorf("error %d = {%q %q}, want key %q and a message with %q", i, got[i].Key, got[i].Message, w.key, w.msg)
				}
				if !strings.Contains(got[i].Message, `"`+strings.ReplaceAll(got[i].Key, `\`, `\\`)+`"`) {
					t.Errorf("message %q does not name the key %q", got[i].Message, got[i].Key)
				}
				if got[i].Error() != got[i].Message {
					t.Errorf("Error() = %q, want the message", got[i].Error())
				}
			}
		})
	}
}

// Every canary of every mode is refused, so a new mode's canaries cannot slip through.
func TestCheckRequestFilesRefusesEveryCanary(t *testing.T) {
	for _, m := range Modes {
		for p := range Canaries(m, "") {
			if errs := CheckRequestFiles([]string{p}); len(errs) != 1 {
				t.Errorf("mode %s: canary %q accepted", m, p)
			}
		}
	}
}

// The files a promise and splitByKind write, laid out at the store root, are refused as keys.
func TestCheckRequestFilesRefusesOtherPlacementsFiles(t *testing.T) {
	target := func(m Mode) Target { return Target{Destination: "w", Mode: m} }
	deps := Dependencies{Promise: "jenkins", All: []byte("a"), CRDs: []byte("c"), Others: []byte("o")}
	var keys []string
	for _, m := range []Mode{ModeNone, ModeSplitByKind} {
		files, err := DependencyFiles(target(m), deps)
		if err != nil {
			t.Fatal(err)
		}
		for p := range files.Put {
			keys = append(keys, p)
		}
	}
	req := Request{Promise: "jenkins", Namespace: "default", Name: "ci", Pipeline: DefaultPipeline, CRDs: []byte("c"), Others: []byte("o")}
	files, err := RequestFiles(target(ModeSplitByKind), req)
	if err != nil {
		t.Fatal(err)
	}
	for p := range files.Put {
		keys = append(keys, p)
	}
	var refused []string
	for _, e := range CheckRequestFiles(keys) {
		refused = append(refused, e.Key)
	}
	if len(refused) != len(keys) {
		t.Errorf("of %q, only %q refused", keys, refused)
	}
	if len(keys) != 6 {
		t.Errorf("expected the dependencies, its index file, two splitByKind files of the promise and two of the request; got %q", keys)
	}
}
