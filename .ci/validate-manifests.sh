#!/usr/bin/env bash
# Checks the Kubernetes manifests under deploy/ offline, without a cluster:
#  1. every kustomization.yaml lists exactly the yaml files of its folder;
#  2. every manifest validates, strictly (no unknown fields), against the
#     Kubernetes API schemas that the PyPI package kubernetes-validate bundles;
#  3. where kubectl is installed, each kustomization renders
#     (`kubectl kustomize`, client-side) and the rendered objects validate too.
set -euo pipefail
cd "$(dirname "$0")/.."

k8s_version=1.30.0
venv=target/ci-manifests-venv
if ! "$venv/bin/kubernetes-validate" --version >/dev/null 2>&1; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check 'kubernetes-validate==1.37.0'
fi
validate=("$venv/bin/kubernetes-validate" --kubernetes-version "$k8s_version" --strict --quiet)

# kubernetes-validate depends on PyYAML, so the venv's Python can read YAML.
"$venv/bin/python" - <<'PY'
import pathlib, sys, yaml

failed = False
for kustomization in sorted(pathlib.Path("deploy").rglob("kustomization.yaml")):
    folder = kustomization.parent
    listed = yaml.safe_load(kustomization.read_text()).get("resources") or []
    present = {p.name for p in folder.glob("*.yaml")} | {p.name for p in folder.glob("*.yml")}
    present.discard("kustomization.yaml")
    for name in sorted(set(listed) - present):
        print(f"{kustomization}: lists {name}, which is not in {folder}/")
        failed = True
    for name in sorted(present - set(listed)):
        print(f"{kustomization}: does not list {folder}/{name}")
        failed = True
    print(f"{kustomization}: {len(listed)} resources")
sys.exit(1 if failed else 0)
PY

count=0
for kustomization in $(find deploy -name kustomization.yaml | sort); do
    folder=$(dirname "$kustomization")
    manifests=$(find "$folder" -maxdepth 1 -name '*.yaml' ! -name kustomization.yaml | sort)
    # shellcheck disable=SC2086 # one word per file name; deploy/ has no spaces.
    "${validate[@]}" $manifests
    count=$((count + $(echo "$manifests" | wc -l)))
    if command -v kubectl >/dev/null 2>&1; then
        rendered=target/ci-manifests-$(echo "$folder" | tr / -).yaml
        kubectl kustomize "$folder" >"$rendered"
        "${validate[@]}" "$rendered"
        echo "$folder: rendered with kubectl kustomize and validated"
    else
        echo "$folder: kubectl not installed, validated the files without rendering"
    fi
done
echo "manifests: $count files valid against Kubernetes $k8s_version (strict)"
