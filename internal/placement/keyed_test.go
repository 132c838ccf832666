package placement_test

import (
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/promise-platform/terraform-provider-kratix/internal/layout"
	"github.com/promise-platform/terraform-provider-kratix/internal/placement"
)

// referenceKeyed spells the documented construction out with HKDF's two steps and a plain HMAC:
// key = HKDF-SHA256(secret, salt "kratix-written-files", info "v1 <identity>"), hash =
// HMAC-SHA256(key, path NUL content).
func referenceKeyed(t *testing.T, secret, identity, path, content string) string {
	t.Helper()
	prk, err := hkdf.Extract(sha256.New, []byte(secret), []byte("kratix-written-files"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := hkdf.Expand(sha256.New, prk, "v1 "+identity, 32)
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(path + "\x00" + content))
	return "hmac:" + hex.EncodeToString(mac.Sum(nil))
}

const secretYAML = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: hunter2\n"

func TestKeyedHash(t *testing.T) {
	key := placement.ContentKey([]byte("provider secret"), requestKey)
	got := placement.Keyed(key, nestedReqDB, []byte(secretYAML))
	equal(t, "Keyed", got, referenceKeyed(t, "provider secret", requestKey, nestedReqDB, secretYAML))
	for what, other := range map[string]string{
		"another provider secret": placement.Keyed(placement.ContentKey([]byte("other secret"), requestKey), nestedReqDB, []byte(secretYAML)),
		"another request":         placement.Keyed(placement.ContentKey([]byte("provider secret"), "default/postgres/db2"), nestedReqDB, []byte(secretYAML)),
		"another path":            placement.Keyed(key, nestedReqDir+"other.yaml", []byte(secretYAML)),
		"another content":         placement.Keyed(key, nestedReqDB, []byte(strings.Replace(secretYAML, "hunter2", "hunter3", 1))),
	} {
		if other == got {
			t.Errorf("%s gives the same keyed hash", what)
		}
	}
	if strings.Contains(got, md5hex(secretYAML)) {
		t.Errorf("the keyed hash holds the MD5 of the content")
	}
}

// Write-only secrets: a request whose content is write-only records keyed hashes, never an MD5, while it
// writes the same bytes.
func TestRequestKeyedRecord(t *testing.T) {
	key := placement.ContentKey([]byte("provider secret"), requestKey)
	for _, mode := range []layout.Mode{layout.ModeNestedByMetadata, layout.ModeNone, layout.ModeAggregatedYAML, layout.ModeSplitByKind} {
		t.Run(string(mode), func(t *testing.T) {
			in := placement.Request{Output: pgRequest(map[string]string{"db.yaml": secretYAML}), Pool: []placement.Member{dev(mode)}}
			in.Output.Others = []byte(secretYAML)
			plain := planRequest(t, in)
			in.HashKey = key
			keyed := planRequest(t, in)
			equal(t, "Ops", keyed.Ops, plain.Ops)
			rec := keyed.Records["dev"]
			if !rec.Keyed() || plain.Records["dev"].Keyed() {
				t.Errorf("Keyed() = %v for the keyed record, %v for the plain one", rec.Keyed(), plain.Records["dev"].Keyed())
			}
			want := map[string]string{}
			for p, v := range plain.Records["dev"].Files {
				switch {
				case strings.HasPrefix(v, placement.AggregateMark):
					part := ""
					for q := range keyed.Ops[0].Change.Put {
						if strings.HasSuffix(q, layout.ContributionExt) {
							part = q
						}
					}
					want[p] = placement.AggregateMark + referenceKeyed(t, "provider secret", requestKey, part, string(keyed.Ops[0].Change.Put[part]))
				default:
					want[p] = referenceKeyed(t, "provider secret", requestKey, p, string(keyed.Ops[0].Change.Put[p]))
				}
			}
			equal(t, "Files", rec.Files, want)
			for p, v := range rec.Files {
				if strings.Contains(v, md5hex(secretYAML)) || strings.Contains(v, md5hex(string(keyed.Ops[0].Change.Put[p]))) {
					t.Errorf("%s records an MD5: %s", p, v)
				}
			}
		})
	}
}

// A keyed record's refresh hashes what Refresh keeps: the files under the owned folders and the
// single files asked for, not the other files an aggregate's check saw.
func TestQueryKept(t *testing.T) {
	q := placement.Query{Prefixes: []string{nestedReqDir}, Files: []string{"kratix/dev/a.yaml"}}
	o := placement.Observation{Found: map[string]string{
		nestedReqDB:                   "1",
		nestedReqDir + "stray.yaml":   "2",
		"kratix/dev/a.yaml":           "3",
		"kratix/dev/someone-else.yml": "4",
	}}
	sameSet(t, "Kept", q.Kept(o), []string{nestedReqDB, nestedReqDir + "stray.yaml", "kratix/dev/a.yaml"})
}
