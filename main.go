package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"

	"github.com/promise-platform/terraform-provider-kratix/internal/provider"
)

// version is set by GoReleaser through ldflags.
var version = "dev"

// profileDirEnv names a folder where each provider process writes a CPU profile of its life,
// cpu-<pid>.pprof, for `go tool pprof`. Terraform starts the provider several times per command.
const profileDirEnv = "KRATIX_PROVIDER_CPU_PROFILE_DIR"

func main() {
	var debug bool
	flag.BoolVar(&debug, "debug", false, "run the provider with support for debuggers such as delve")
	flag.Parse()

	if !debug {
		quietUnlessAsked(os.Environ())
	}
	tuneGC()
	stop, err := startProfile(os.Getenv(profileDirEnv))
	if err != nil {
		log.Fatal(err)
	}
	var opts []tf6server.ServeOpt
	if debug {
		opts = append(opts, tf6server.WithManagedDebug())
	}
	server := provider.NewServer(version)
	err = tf6server.Serve(provider.Address, func() tfprotov6.ProviderServer {
		s, err := server()
		if err != nil {
			log.Fatal(err)
		}
		return s
	}, opts...)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

// startProfile starts a CPU profile in dir (nothing when dir is empty) and returns what ends it.
func startProfile(dir string) (func(), error) {
	if dir == "" {
		return func() {}, nil
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", os.Getpid())))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", profileDirEnv, err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("%s: %w", profileDirEnv, err)
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}, nil
}

// quietUnlessAsked turns off the logs of the plugin SDK (every request traced, as JSON, on stderr)
// when no TF_LOG variable asks for provider logs: Terraform then throws those lines away, and
// writing them costs the provider a tenth of its CPU time on a large plan. With TF_LOG,
// TF_LOG_PROVIDER or any TF_LOG_SDK variable set, nothing changes.
func quietUnlessAsked(environ []string) {
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if value != "" && (name == "TF_LOG" || strings.HasPrefix(name, "TF_LOG_PROVIDER") || strings.HasPrefix(name, "TF_LOG_SDK")) {
			return
		}
	}
	for _, name := range []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"} {
		_ = os.Setenv(name, "off")
	}
}

// The provider's garbage collection, unless GOGC or GOMEMLIMIT says otherwise. A plan converts
// every resource's state and configuration between Terraform's types and the framework's several
// times, which allocates fast and keeps little: with Go's default (GOGC 100) collections took a
// quarter of the provider's CPU time in B4's plan, and the plan was a fifth slower than with
// GOGC 200. 200 lets the heap grow to three times what is live before a collection (twice by
// default): about 50 KiB per promise x destination in B7 against 33. The soft limit bounds that
// growth for a fleet: above 2 GiB the runtime collects more often instead.
const (
	gcPercent     = 200
	gcMemoryLimit = 2 << 30
)

func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(gcPercent)
	debug.SetMemoryLimit(gcMemoryLimit)
}
