package main

import (
	"os"
	"testing"
)

// TestQuietUnlessAsked: the SDK's logs are turned off only when no variable asks for provider
// logs, so TF_LOG=debug terraform plan still shows them.
func TestQuietUnlessAsked(t *testing.T) {
	quietVars := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER"}
	for _, tc := range []struct {
		environ []string
		quiet   bool
	}{
		{environ: []string{"PATH=/bin", "TF_LOG="}, quiet: true},
		{environ: []string{"TF_LOG=debug"}, quiet: false},
		{environ: []string{"TF_LOG_PROVIDER=trace"}, quiet: false},
		{environ: []string{"TF_LOG_PROVIDER_KRATIX=debug"}, quiet: false},
		{environ: []string{"TF_LOG_SDK_FRAMEWORK=trace"}, quiet: false},
		{environ: []string{"TF_LOG_CORE=trace"}, quiet: true}, // Terraform shows no provider logs then
	} {
		for _, v := range quietVars {
			t.Setenv(v, "")
		}
		quietUnlessAsked(tc.environ)
		for _, v := range quietVars {
			got := os.Getenv(v)
			if tc.quiet && got != "off" {
				t.Errorf("%v: %s = %q, want off", tc.environ, v, got)
			}
			if !tc.quiet && got != "" {
				t.Errorf("%v: %s = %q, want it left unset", tc.environ, v, got)
			}
		}
	}
}
