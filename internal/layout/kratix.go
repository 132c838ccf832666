package layout

import (
	"regexp"
	"strings"
)

// Kratix names a placement's index file of mode none after its WorkPlacement, whose name holds
// its Work's five random characters; these recognise such files, so that a store Kratix wrote is
// adopted where it is.

// kratixWorkMax is the longest identifier Kratix keeps in a Work's name, before "-" and the
// random characters.
const kratixWorkMax = 56

// KratixWorkPrefix is what a Work's name holds before "-" and its five random characters: the
// identifier cut to at most 56 characters, with trailing characters that are not letters or
// digits removed.
func KratixWorkPrefix(identifier string) string {
	if len(identifier) > kratixWorkMax {
		identifier = identifier[:kratixWorkMax]
	}
	return strings.TrimRightFunc(identifier, func(r rune) bool { return !isAlphanumeric(r) })
}

// KratixRequestIdentifier is the identifier Kratix names a request's Work after:
// `<promise>-<name>-<namespace>-<pipeline>`, without the namespace part when it is empty.
func KratixRequestIdentifier(r Request) string {
	parts := []string{r.Promise, r.Name}
	if r.Namespace != "" {
		parts = append(parts, r.Namespace)
	}
	return strings.Join(append(parts, r.Pipeline), "-")
}

// KratixIndex recognises the index files Kratix may have written for one placement in one
// destination's folder, whatever its random characters.
type KratixIndex struct {
	// Dir is the folder to list: `<root>/.kratix/`.
	Dir string
	re  *regexp.Regexp
}

// kratixRandom is Kratix's five random characters: from a UUID (hexadecimal) today, from
// Kubernetes' random strings (lowercase letters and digits) in older releases.
const kratixRandom = `[a-z0-9]{5}`

func kratixIndex(t Target, namespace, workPrefix string) KratixIndex {
	name := regexp.QuoteMeta(namespace+"-"+workPrefix) + "-" + kratixRandom + `\.` +
		regexp.QuoteMeta(t.Destination) + "-" + DefaultGroupID + `\.yaml`
	return KratixIndex{Dir: Prefix(t.Root, IndexDir), re: regexp.MustCompile("^" + name + "$")}
}

// KratixRequestIndex recognises the index files of a request's WorkPlacement on t's destination:
// `.kratix/<namespace>-<work>.<destination>-5058f.yaml`, where the Work is named after
// KratixRequestIdentifier.
func KratixRequestIndex(t Target, r Request) KratixIndex {
	return kratixIndex(t, r.Namespace, KratixWorkPrefix(KratixRequestIdentifier(r)))
}

// KratixDependencyIndex recognises the index files of a promise's static dependencies on t's
// destination: their Work is `<promise>-static-deps-<random>`, in PromiseNamespace.
func KratixDependencyIndex(t Target, promise string) KratixIndex {
	return kratixIndex(t, PromiseNamespace, DependenciesWork(promise))
}

// Match reports whether a store path is such an index file.
func (k KratixIndex) Match(p string) bool {
	rest, ok := strings.CutPrefix(p, k.Dir)
	return ok && k.re != nil && !strings.Contains(rest, "/") && k.re.MatchString(rest)
}

func isAlphanumeric(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}
