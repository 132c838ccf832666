package testinfra

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// MinIOModule is the MinIO server the tests run, as `go install` takes it. The Makefile installs
// the same module@version, so that both agree on the binary.
const MinIOModule = "github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c"

// MinIOBinEnv names an environment variable holding the path of a MinIO server binary to use
// as is, skipping the search and the version check.
const MinIOBinEnv = "KRATIX_MINIO_BIN"

// minioInstallTimeout bounds `go install`: about five minutes on two cores, with room to spare.
const minioInstallTimeout = 30 * time.Minute

// MinIOBinary returns the path of the MinIO server binary, building it first if needed.
//
// It uses $KRATIX_MINIO_BIN if set; otherwise the first of $(go env GOBIN) or
// $(go env GOPATH)/bin, then PATH, that holds a `minio` built from MinIOModule (the version is
// read from the binary's build information). If there is none it runs `go install MinIOModule`,
// which takes minutes, holding a lock file in os.TempDir() so that test packages running in
// parallel build it only once.
func MinIOBinary() (string, error) {
	if path := os.Getenv(MinIOBinEnv); path != "" {
		if err := checkExecutable(path); err != nil {
			return "", fmt.Errorf("MinIO binary from $%s: %w", MinIOBinEnv, err)
		}
		return path, nil
	}
	if path, ok := findPinnedMinIO(); ok {
		return path, nil
	}

	unlock, err := lockFile(filepath.Join(os.TempDir(), "kratix-testinfra-minio-install.lock"))
	if err != nil {
		return "", fmt.Errorf("install MinIO: %w", err)
	}
	defer unlock()
	// Another test package may have finished the build while we waited for the lock.
	if path, ok := findPinnedMinIO(); ok {
		return path, nil
	}
	if err := installMinIO(); err != nil {
		return "", err
	}
	if path, ok := findPinnedMinIO(); ok {
		return path, nil
	}
	return "", fmt.Errorf("install MinIO: `go install %s` succeeded but no minio binary of that version is in GOBIN, GOPATH/bin or PATH", MinIOModule)
}

// findPinnedMinIO looks for a minio binary built from MinIOModule where `go install` puts it,
// then on PATH.
func findPinnedMinIO() (string, bool) {
	var candidates []string
	if dir, err := goInstallDir(); err == nil {
		candidates = append(candidates, filepath.Join(dir, "minio"))
	}
	if path, err := exec.LookPath("minio"); err == nil {
		candidates = append(candidates, path)
	}
	for _, path := range candidates {
		if isPinnedMinIO(path) {
			return path, true
		}
	}
	return "", false
}

// isPinnedMinIO reports whether the binary at path was built from MinIOModule. A half-written
// binary (a build still being copied in place) has no readable build information and fails.
func isPinnedMinIO(path string) bool {
	if checkExecutable(path) != nil {
		return false
	}
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return false
	}
	return info.Main.Path+"@"+info.Main.Version == MinIOModule
}

// goInstallDir is where `go install` writes binaries: GOBIN, or the bin folder of GOPATH's
// first entry. It asks the go command so that settings from `go env -w` count.
func goInstallDir() (string, error) {
	out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOBIN GOPATH: %w", err)
	}
	// One line each, in order; an unset GOBIN prints an empty line.
	gobin, gopath, _ := strings.Cut(strings.TrimRight(string(out), "\r\n"), "\n")
	if gobin = strings.TrimSpace(gobin); gobin != "" {
		return gobin, nil
	}
	entries := filepath.SplitList(strings.TrimSpace(gopath))
	if len(entries) == 0 || entries[0] == "" {
		return "", fmt.Errorf("go env reports neither GOBIN nor GOPATH")
	}
	return filepath.Join(entries[0], "bin"), nil
}

func installMinIO() error {
	fmt.Fprintf(os.Stderr, "testinfra: building %s (minutes, first time only)...\n", MinIOModule)
	ctx, cancel := context.WithTimeout(context.Background(), minioInstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "install", MinIOModule)
	// Outside any module, so that the caller's go.mod plays no part in the build.
	cmd.Dir = os.TempDir()
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("install MinIO: go install %s: %w\n%s", MinIOModule, err, tail(output.Bytes(), 4096))
	}
	return nil
}

func checkExecutable(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if info.IsDir() || info.Mode()&0o111 == 0 {
		return fmt.Errorf("%s is not an executable file", path)
	}
	return nil
}
