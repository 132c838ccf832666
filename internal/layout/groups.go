package layout

import (
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"
)

// Workload groups: what Kratix does with a folder of a pipeline's output that
// /kratix/metadata/destination-selectors.yaml names in a `directory` entry, as read in
// syntasso/kratix at ae170e22 (facts only; the code and wording here are ours):
//
//   - The directory is cleaned with filepath.Clean, so "baz/", "./baz" and "baz" are one group,
//     and "" is "." (work-creator/lib/work_creator.go, ParseDestinationSelectors). Two entries
//     naming one cleaned directory are refused (containsDuplicateScheduling), as is a directory
//     whose base name is not the whole name, such as "a/b" (containsSubDirectory). A directory
//     that is not a folder of the output fails the work-creator too: its files are read with
//     os.ReadDir (getWorkloadsFromDir), which errs on a missing folder and on a file.
//   - The group's id is the hex MD5 of the cleaned directory; the default group's directory is
//     "." (api/v1alpha1/work_types.go, DefaultWorkloadGroupDirectory; lib/hash/hasher.go,
//     ComputeHash), so its id is 5058f1af8388633f609cadb75a75dc9d (WorkCreator.Execute).
//   - The group holds every file under the folder, at any depth, and each keeps its path
//     relative to the output folder, the directory included ("baz/x.yaml"): getWorkloadsFromDir
//     takes paths relative to the output root. Every other file, those in other folders
//     included, is in the default group, which is left out of the Work when no file remains
//     for it (Execute adds it only when it has workloads).
//   - Each group is placed on its own: a WorkPlacement named `<work>.<destination>-<first five
//     of the id>` (internal/controller/scheduler.go, applyWorkplacementsForTargetDestinations;
//     internal/controller/shared.go, shortID), labelled with the full id, found again by that id
//     on every reconcile so the choice sticks (getExistingWorkPlacementsForWorkloadGroup), and
//     deleted once its group leaves the Work (cleanupDanglingWorkplacements). A directory group
//     is scheduled by its own selectors only: the promise's are added to the default group alone
//     (Execute).
//   - In the store (internal/controller/workplacement_controller.go): nestedByMetadata writes a
//     group under `resources/<namespace>/<promise>/<name>/<pipeline>/<short id>/` (getDir), so a
//     group's files are at `.../<short id>/baz/x.yaml`; none writes them at `<root>/baz/x.yaml`
//     and records them in `.kratix/<namespace>-<WorkPlacement name>.yaml`, whose name ends in
//     the group's short id (generateKratixStateFile); aggregatedYAML joins the WorkPlacements of
//     a destination in name order (getAllWorkplacementsForDestination), so a group's documents
//     sit where its WorkPlacement name sorts.
//
// What this provider does differently: splitByKind is Kratix's 2023 layout, from before workload
// groups existed (a Work then had one set of manifests and its WorkPlacement no group suffix), so
// a group there is this provider's own choice: its files are named after the Work followed by
// "-<short id>" (`crds/00-<work>-<short id>-crds.yaml`). Kratix accepts "/" and ".." as
// directories (neither has a sub-directory in its base name) and then reads the whole output, or
// the folder above it; this provider refuses both. It refuses "." as well: in Kratix that entry
// makes no group of its own, it only gives the default group the workflow's selectors.

// DefaultGroupDir is the folder of Kratix's default workload group: the pipeline's output folder
// itself. A Request whose Group is "" is in it as well.
const DefaultGroupDir = "."

// CleanGroupDir is the folder a group name means, cleaned as Kratix cleans a `directory`: "baz/"
// and "./baz" are "baz", and "" is DefaultGroupDir.
func CleanGroupDir(dir string) string {
	return path.Clean(dir)
}

// IsDefaultGroup reports whether dir names the default workload group ("" or ".", once cleaned).
func IsDefaultGroup(dir string) bool {
	return CleanGroupDir(dir) == DefaultGroupDir
}

// GroupID is Kratix's id of the workload group of folder dir: the hex MD5 of the cleaned folder
// name. GroupID(".") and GroupID("") are 5058f1af8388633f609cadb75a75dc9d.
func GroupID(dir string) string {
	sum := md5.Sum([]byte(CleanGroupDir(dir)))
	return hex.EncodeToString(sum[:])
}

// ShortGroupID is the first five characters of GroupID, which Kratix puts in a WorkPlacement's
// name and, in nestedByMetadata, in its folder. ShortGroupID(".") is DefaultGroupID.
func ShortGroupID(dir string) string {
	return GroupID(dir)[:5]
}

// ValidateGroupDir checks that dir may name a workload group of a request whose file keys
// (cleaned, as NormaliseFileKey leaves them) are files: a single folder inside the output folder,
// as Kratix requires of a `directory`, that holds at least one of the files. Kratix reads the
// folder when the pipeline ends and fails on one that is missing or is a file; a request's
// `files` cannot hold an empty folder, so the folder must hold a file.
func ValidateGroupDir(dir string, files []string) error {
	if err := checkGroupName(dir); err != nil {
		return err
	}
	clean := CleanGroupDir(dir)
	held := false
	for _, f := range files {
		f = path.Clean(f)
		if f == clean {
			return fmt.Errorf("group %q names the file %q, not a folder; a group names a folder of the request's files, such as the %q of %q", dir, f, "db", "db/app.yaml")
		}
		held = held || strings.HasPrefix(f, clean+"/")
	}
	if held {
		return nil
	}
	return fmt.Errorf("group %q names the folder %q, which holds none of the request's files; add a file such as %q or remove the group", dir, clean+"/", clean+"/app.yaml")
}

// checkGroupName checks the name of a group alone: one folder, directly inside the output folder.
func checkGroupName(dir string) error {
	clean := CleanGroupDir(dir)
	switch {
	case strings.Contains(dir, `\`):
		return fmt.Errorf(`group %q contains a backslash; separate folders with "/", and name one folder, such as %q`, dir, firstSegment(strings.ReplaceAll(dir, `\`, "/")))
	case strings.HasPrefix(dir, "/"):
		return fmt.Errorf(`group %q starts with "/"; name a folder relative to the pipeline's output folder, such as %q`, dir, firstSegment(strings.TrimLeft(dir, "/")))
	case clean == DefaultGroupDir:
		return fmt.Errorf(`group %q names the output folder itself, whose files are the default group (placed by the promise's destination selectors); name a folder of the request's files, such as "db"`, dir)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return fmt.Errorf(`group %q leads outside the pipeline's output folder; name a folder inside it, such as "db"`, dir)
	case strings.Contains(clean, "/"):
		return fmt.Errorf("group %q names a folder inside another (%q); Kratix places only the folders directly in the output folder on their own, so name %q, which then holds all of %q", dir, clean, firstSegment(clean), clean+"/")
	}
	return nil
}

// firstSegment is the first folder of a slash-separated path, to suggest as a group's name;
// "db" when there is none.
func firstSegment(p string) string {
	for _, seg := range strings.Split(p, "/") {
		if seg != "" && seg != "." && seg != ".." {
			return seg
		}
	}
	return "db"
}

// GroupError is one refused name of a request's groups. Message is a sentence a Terraform user
// can act on and names the key, so that it can stand alone as a diagnostic's detail.
type GroupError struct {
	Key     string
	Message string
}

func (e GroupError) Error() string { return e.Message }

// ValidateGroups checks every group name of a request (see ValidateGroupDir) against its file keys
// and refuses names that mean the same folder once cleaned ("db", "db/" and "./db"), as Kratix
// refuses two entries for one directory. It returns the refused names sorted by name, at most one
// error each; nil when all are valid.
func ValidateGroups(dirs, files []string) []GroupError {
	var errs []GroupError
	byDir := map[string][]string{}
	for _, dir := range dedupe(dirs) {
		if err := ValidateGroupDir(dir, files); err != nil {
			errs = append(errs, GroupError{Key: dir, Message: sentence(err)})
			continue
		}
		clean := CleanGroupDir(dir)
		byDir[clean] = append(byDir[clean], dir)
	}
	for clean, same := range byDir {
		errs = append(errs, groupCollisions(clean, same)...)
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Key < errs[j].Key })
	return errs
}

// groupCollisions reports every name that means the folder clean except the one to keep (see
// others).
func groupCollisions(clean string, dirs []string) []GroupError {
	var errs []GroupError
	keep, rest := others(clean, dirs)
	for _, d := range rest {
		errs = append(errs, GroupError{Key: d, Message: fmt.Sprintf(
			"Group %q names the same folder as %q (both mean %q); keep only one of them.", d, keep, clean)})
	}
	return errs
}

// SplitGroups splits a request's files (keys cleaned, as NormaliseFileKey leaves them) into
// workload groups as Kratix's work-creator does: each file under `<dir>/`, at any depth, goes to
// the group of dir, keeping its path; every other file goes to the default group, keyed
// DefaultGroupDir, which is absent when no file is left for it. Groups are keyed by their cleaned
// folder. It refuses what ValidateGroups refuses, every error joined.
func SplitGroups(files map[string][]byte, dirs []string) (map[string]map[string][]byte, error) {
	names := sortedFileNames(files)
	if errs := ValidateGroups(dirs, names); len(errs) > 0 {
		all := make([]error, len(errs))
		for i, e := range errs {
			all[i] = e
		}
		return nil, errors.Join(all...)
	}
	groupOf := map[string]bool{}
	for _, d := range dirs {
		groupOf[CleanGroupDir(d)] = true
	}
	out := map[string]map[string][]byte{}
	for _, name := range names {
		g := DefaultGroupDir
		if top, _, nested := strings.Cut(name, "/"); nested && groupOf[top] {
			g = top
		}
		if out[g] == nil {
			out[g] = map[string][]byte{}
		}
		out[g][name] = files[name]
	}
	return out, nil
}

// checkRequestGroup refuses a Request whose Group is not a single folder of the output, or holds
// a file outside that folder: RequestFiles would otherwise write files where no Kratix group puts
// them.
func checkRequestGroup(r Request) error {
	if IsDefaultGroup(r.Group) {
		return nil
	}
	if err := checkGroupName(r.Group); err != nil {
		return err
	}
	prefix := CleanGroupDir(r.Group) + "/"
	for _, name := range sortedFileNames(r.Files) {
		if !strings.HasPrefix(name, prefix) {
			return fmt.Errorf("file %q is not in the folder %q of group %q; a group holds only the files under its folder", name, prefix, r.Group)
		}
	}
	return nil
}
