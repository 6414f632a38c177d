#!/usr/bin/env bash
# Reproduce models/squares.onnx from scratch: venv, assets, data, training, export, fixtures.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
fi
.venv/bin/pip install --quiet -r requirements.txt
.venv/bin/python fetch_assets.py
.venv/bin/python gen_data.py --boards-train "${BOARDS_TRAIN:-5000}" --boards-val 500 --boards-heldout 500
.venv/bin/python train.py --epochs "${EPOCHS:-1.2}"
.venv/bin/python make_testdata.py
sha256sum ../models/squares.onnx
