# Sourced by the GPU call (benchmarks/gpu_call.sh) on the lent machine,
# which has no network: installs the carried wheels of .whl/ (benchmarks/gpu_wheels.sh packs them; loose
# *.whl files there are taken too) that this Python lacks or holds older into /tmp/lc/site-packages and puts
# that folder first on PYTHONPATH, then stops with an error: line per distribution of
# benchmarks/gpu_wheels.txt still missing. Without a .whl/ folder it installs nothing. A second call on the
# same (warm) machine with the same wheels reuses the folder.
python="${PYTHON:-python3}"
if [ -d .whl ]; then
    site=/tmp/lc/site-packages  # the folder's name must hold site-packages (docs/benchmarks/grpo_gpu.md)
    stamp=$(ls -l .whl | md5sum | cut -d' ' -f1)
    if [ "$(cat /tmp/lc/stamp 2>/dev/null)" != "$stamp" ]; then
        rm -rf /tmp/lc/wheels "$site" /tmp/lc/stamp && mkdir -p /tmp/lc/wheels "$site"
        if [ -f .whl/wheels.tar.xz ]; then
            "$python" benchmarks/pack_wheels.py unpack .whl/wheels.tar.xz /tmp/lc/wheels || return 1
        fi
        find .whl -maxdepth 1 -type f -name '*.whl' -exec cp {} /tmp/lc/wheels/ \;
        picked=$("$python" benchmarks/pick_wheels.py /tmp/lc/wheels 2>/tmp/lc/pick_wheels.log)  # reasons there
        mapfile -t wheels <<<"${picked:-}"
        [ -n "${picked:-}" ] || wheels=()
        echo "installing ${#wheels[@]} carried wheels into $site"
        if [ "${#wheels[@]}" -gt 0 ]; then
            "$python" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
                --target "$site" "${wheels[@]}" || return 1
        fi
        echo "$stamp" >/tmp/lc/stamp
    else
        echo "carried wheels already installed in $site"
    fi
    export PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}"
fi
"$python" benchmarks/pick_wheels.py --require benchmarks/gpu_wheels.txt || return 1
