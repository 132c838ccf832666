package layout

import (
	"regexp"
	"strings"
)

// Kratix names a placement's index file of mode none after its WorkPlacement, whose name holds
// its Work's five random characters; these recognise such files, so that a store Kratix wrote is
// adopted where it is.
//
// The rules, as syntasso/kratix builds the names (read at ae170e22):
//   - work-creator/lib/work_creator.go, buildWorkIdentifier: a request's Work is named after
//     `<promise>-<name>-<resourceNamespace>-<pipeline>`, or `<promise>-<name>-<pipeline>` when
//     resourceNamespace is empty; a promise workflow's after `<promise>-<pipeline>`.
//   - api/v1alpha1/pipeline_factory.go, workCreatorContainer: the work-creator is given
//     --resource-namespace only when the promise sets spec.workflows.config.pipelineNamespace
//     (WorkflowPipelineNamespaceSet). A default promise's request Works therefore have no
//     namespace part: request sample-b of promise sample is `sample-sample-b-instance-configure-<random>`.
//   - api/v1alpha1/pipeline_types.go, ForResource: the Work (and so its WorkPlacements) lives in
//     the request's namespace, or in pipelineNamespace when the promise sets it.
//   - lib/objectutil/name.go, GenerateObjectName: an identifier longer than 57 characters
//     (63 - 1 - 5) is cut to 56, trailing characters that are not letters or digits go, then
//     "-" and the first five characters of a UUID.
//   - internal/controller/promise_controller.go: the static dependencies' Work is
//     GenerateObjectName(`<promise>-static-deps`), in kratix-platform-system.
//   - internal/controller/scheduler.go: a WorkPlacement is `<work>.<destination>-<first five of
//     the group id>` (5058f for the default group; see groups.go for the others);
//     internal/controller/workplacement_controller.go: its index file is
//     `.kratix/<WorkPlacement namespace>-<WorkPlacement name>.yaml`.

// kratixNameMax is the longest identifier Kratix keeps whole in a Work's name; a longer one is
// cut to kratixNameCut characters (objectutil.processName cuts to maxNameLength-1).
const (
	kratixNameMax = 63 - 1 - 5
	kratixNameCut = kratixNameMax - 1
)

// KratixWorkPrefix is what a Work's name holds before "-" and its five random characters: the
// identifier, cut to 56 characters when it is longer than 57, with trailing characters that are
// not letters or digits removed.
func KratixWorkPrefix(identifier string) string {
	if len(identifier) > kratixNameMax {
		identifier = identifier[:kratixNameCut]
	}
	return strings.TrimRightFunc(identifier, func(r rune) bool { return !isAlphanumeric(r) })
}

// KratixRequestIdentifier is the identifier Kratix names a request's Work after when its promise
// sets no pipelineNamespace (the default): `<promise>-<name>-<pipeline>`.
func KratixRequestIdentifier(r Request) string {
	return strings.Join([]string{r.Promise, r.Name, r.Pipeline}, "-")
}

// KratixNamespacedRequestIdentifier is the identifier Kratix names a request's Work after when
// its promise sets workflows.config.pipelineNamespace: `<promise>-<name>-<namespace>-<pipeline>`.
func KratixNamespacedRequestIdentifier(r Request) string {
	return strings.Join([]string{r.Promise, r.Name, r.Namespace, r.Pipeline}, "-")
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

// kratixAnyNamespace is any Kubernetes namespace: a promise's pipelineNamespace, which the
// provider does not know.
const kratixAnyNamespace = `[a-z0-9]([-a-z0-9]*[a-z0-9])?`

// kratixIndexName is the pattern of the index file name of one WorkPlacement of the workload
// group whose short id is short, the namespace a pattern.
func kratixIndexName(t Target, namespace, workPrefix, short string) string {
	return namespace + "-" + regexp.QuoteMeta(workPrefix) + "-" + kratixRandom + `\.` +
		regexp.QuoteMeta(t.Destination) + "-" + short + `\.yaml`
}

func kratixIndex(t Target, names ...string) KratixIndex {
	return KratixIndex{Dir: Prefix(t.Root, IndexDir), re: regexp.MustCompile("^(" + strings.Join(names, "|") + ")$")}
}

// KratixRequestIndex recognises the index files of the WorkPlacement of a request's workload
// group r.Group on t's destination, under both names Kratix gives its Work: `.kratix/<namespace>-<promise>-<name>-<pipeline>-<random>.<destination>-<short id>.yaml`
// for a default promise, and `.kratix/<pipelineNamespace>-<promise>-<name>-<namespace>-<pipeline>-<random>.<destination>-<short id>.yaml`
// for a promise that sets workflows.config.pipelineNamespace (any namespace: the provider does
// not know it), each identifier cut as KratixWorkPrefix says. The short id is ShortGroupID of
// the group: 5058f for the default group.
func KratixRequestIndex(t Target, r Request) KratixIndex {
	short := ShortGroupID(r.Group)
	return kratixIndex(t,
		kratixIndexName(t, regexp.QuoteMeta(r.Namespace), KratixWorkPrefix(KratixRequestIdentifier(r)), short),
		kratixIndexName(t, kratixAnyNamespace, KratixWorkPrefix(KratixNamespacedRequestIdentifier(r)), short))
}

// KratixDependencyIndex recognises the index files of a promise's static dependencies on t's
// destination: their Work is `<promise>-static-deps-<random>`, in PromiseNamespace.
func KratixDependencyIndex(t Target, promise string) KratixIndex {
	return kratixIndex(t, kratixIndexName(t, regexp.QuoteMeta(PromiseNamespace), KratixWorkPrefix(DependenciesWork(promise)), DefaultGroupID))
}

// Match reports whether a store path is such an index file.
func (k KratixIndex) Match(p string) bool {
	rest, ok := strings.CutPrefix(p, k.Dir)
	return ok && k.re != nil && !strings.Contains(rest, "/") && k.re.MatchString(rest)
}

func isAlphanumeric(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}
