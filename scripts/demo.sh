#!/usr/bin/env bash
# make demo: apply the quickstart to a local Git repository with the provider built from this
# checkout, then show what was written. Needs only Go, git and the Terraform CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
terraform=${TERRAFORM:-$(command -v terraform || echo /usr/local/bin/terraform)}
demo=$top/.demo
rm -rf "$demo"
mkdir -p "$demo/work"

# Terraform uses the freshly built binary instead of a registry download.
cat > "$demo/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "promise-platform/kratix" = "$top/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE=$demo/terraformrc
export TF_IN_AUTOMATION=1

git init --quiet --bare -b main "$demo/gitops.git"
cp examples/quickstart/main.tf "$demo/work/"
cd "$demo/work"

echo "==> terraform apply (state store: file://$demo/gitops.git)"
# The one remaining warning is expected: it says Terraform uses the binary just built.
"$terraform" apply -auto-approve -no-color -compact-warnings -var "repository_url=file://$demo/gitops.git" 2>&1 \
  | grep -v -e '^ *$' -e '^[│╷╵]' -e 'CLI configuration' || true

echo
echo "==> What the repository holds now (branch main)"
git --git-dir="$demo/gitops.git" ls-tree -r --name-only main | sed 's/^/  /'
echo
echo "==> Commits"
git --git-dir="$demo/gitops.git" log --format='  %h %an: %s' main
echo
echo "==> Placement decisions"
"$terraform" output -no-color -json placement 2>/dev/null | sed 's/^/  /'
echo
echo "==> worker-1/dependencies/team-namespace/5058f/static/team-namespace-dependencies.yaml"
git --git-dir="$demo/gitops.git" show main:worker-1/dependencies/team-namespace/5058f/static/team-namespace-dependencies.yaml | sed 's/^/  /'
echo
echo "==> A second plan changes nothing"
"$terraform" plan -detailed-exitcode -no-color -var "repository_url=file://$demo/gitops.git" >/dev/null 2>&1 \
  && echo "  No changes." || { echo "  unexpected: the second plan is not empty" >&2; exit 1; }
