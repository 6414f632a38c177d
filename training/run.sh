#!/usr/bin/env bash
# Reproduce models/squares.onnx and models/coords.onnx from scratch: venv, assets, data, training, export, fixtures.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
  .venv/bin/pip install --quiet --upgrade pip
fi
.venv/bin/pip install --quiet -r requirements.txt
.venv/bin/python fetch_assets.py
.venv/bin/python gen_data.py --boards-train "${BOARDS_TRAIN:-18000}" --boards-val 800 --boards-heldout 800
.venv/bin/python train.py --epochs "${EPOCHS:-5}"
# Prints the temperature for recognize::classifier::TEMPERATURE.
.venv/bin/python calibrate.py
.venv/bin/python gen_coords.py --boards-train 2400 --boards-val 300 --boards-heldout 300
.venv/bin/python train_coords.py --epochs 14
.venv/bin/python make_testdata.py
sha256sum ../models/squares.onnx ../models/coords.onnx
