package testinfra

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// ForeignRepo describes a repository that other teams fill: Files files under teams/, added
// over Commits commits (Files/Commits per commit, the rest in the last), each about FileSize
// bytes of YAML. The content, the commit dates and so the hashes are the same on every run.
type ForeignRepo struct {
	Files, Commits, FileSize int
}

// ForeignPath is the path of the i-th file of a ForeignRepo: 10 files per application, 20
// applications per team, teams/team-NNN/app-NN/file-N.yaml.
func ForeignPath(i int) string {
	return fmt.Sprintf("teams/team-%03d/app-%02d/file-%d.yaml", i/200, i/10%20, i%10)
}

// ForeignContent is the content of the i-th file of a ForeignRepo of files of about size bytes.
func ForeignContent(i, size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 128)
	fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-%d\n  namespace: team-%03d\ndata:\n", i, i/200)
	for line := 0; b.Len() < size; line++ {
		fmt.Fprintf(&b, "  key-%04d: value-%d-%x\n", line, i, (i+1)*(line+7)*2654435761%(1<<32))
	}
	return b.Bytes()
}

// CreateForeignRepo creates bare repository name whose branch holds spec's files, with spec's
// history, written with git fast-import (seconds for tens of thousands of files), then packed as
// a server would keep it (git repack -a -d, deltas and all).
func (g *GitServer) CreateForeignRepo(name, branch string, spec ForeignRepo) error {
	if spec.Files < 1 || spec.Commits < 1 || spec.Commits > spec.Files {
		return fmt.Errorf("create repository %q: want 1 <= commits <= files, got %d files in %d commits", name, spec.Files, spec.Commits)
	}
	path, err := g.initBare(name, branch)
	if err != nil {
		return err
	}
	var stream bytes.Buffer
	w := &stream
	per := spec.Files / spec.Commits
	const epoch = 1700000000
	for c := range spec.Commits {
		first, last := c*per, (c+1)*per
		if c == spec.Commits-1 {
			last = spec.Files
		}
		msg := fmt.Sprintf("teams: files %d to %d", first, last-1)
		fmt.Fprintf(w, "commit refs/heads/%s\n", branch)
		fmt.Fprintf(w, "committer Other Team <other@example.com> %d +0000\n", epoch+c*60)
		fmt.Fprintf(w, "data %d\n%s\n", len(msg), msg)
		for i := first; i < last; i++ {
			content := ForeignContent(i, spec.FileSize)
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", ForeignPath(i), len(content))
			w.Write(content)
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
	if _, err := runGit(path, stream.Bytes(), "fast-import", "--quiet"); err != nil {
		return fmt.Errorf("create repository %q: %w", name, err)
	}
	if _, err := runGit(path, nil, "repack", "-a", "-d", "-q"); err != nil {
		return fmt.Errorf("create repository %q: %w", name, err)
	}
	return nil
}

// ForeignFilesIntact checks, with the git CLI, that branch still holds every file of spec with
// its content, and returns how many files the branch holds in all.
func (g *GitServer) ForeignFilesIntact(name, branch string, spec ForeignRepo) (int, error) {
	path, err := g.existingRepo(name)
	if err != nil {
		return 0, err
	}
	out, err := runGit(path, nil, "ls-tree", "-r", "-z", "refs/heads/"+branch)
	if err != nil {
		return 0, err
	}
	blobs := map[string]string{} // path to blob hash
	for _, rec := range splitNUL(out) {
		meta, p, ok := strings.Cut(rec, "\t")
		if f := strings.Fields(meta); ok && len(f) == 3 {
			blobs[p] = f[2]
		}
	}
	var batch bytes.Buffer
	for i := range spec.Files {
		h, ok := blobs[ForeignPath(i)]
		if !ok {
			return len(blobs), fmt.Errorf("repository %q: %s is gone", name, ForeignPath(i))
		}
		fmt.Fprintln(&batch, h)
	}
	// cat-file --batch prints each blob's content; compare it with what the file should hold.
	got, err := runGit(path, batch.Bytes(), "cat-file", "--batch")
	if err != nil {
		return len(blobs), err
	}
	rd := bufio.NewReader(bytes.NewReader(got))
	for i := range spec.Files {
		header, err := rd.ReadString('\n')
		if err != nil {
			return len(blobs), fmt.Errorf("repository %q: reading %s: %w", name, ForeignPath(i), err)
		}
		var hash, kind string
		var size int
		if _, err := fmt.Sscanf(header, "%s %s %d", &hash, &kind, &size); err != nil || kind != "blob" {
			return len(blobs), fmt.Errorf("repository %q: %s: unexpected %q", name, ForeignPath(i), strings.TrimSpace(header))
		}
		content := make([]byte, size+1) // and the newline after it
		if _, err := io.ReadFull(rd, content); err != nil {
			return len(blobs), fmt.Errorf("repository %q: reading %s: %w", name, ForeignPath(i), err)
		}
		if !bytes.Equal(content[:size], ForeignContent(i, spec.FileSize)) {
			return len(blobs), fmt.Errorf("repository %q: %s changed", name, ForeignPath(i))
		}
	}
	return len(blobs), nil
}
