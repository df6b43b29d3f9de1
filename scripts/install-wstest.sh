#!/usr/bin/env bash
# Installs Autobahn|Testsuite's `wstest` into .build-conformance/ (inside the repository; nothing
# outside it is touched or cached).
#
# wstest runs only on Python 2.7, which Debian 12 no longer ships. Debian 11's python2.7 packages
# are fetched with apt-get download through a private apt configuration (the machine's own mirror,
# suite bullseye; the system's sources and lists are not changed), unpacked with `dpkg -x` into
# .build-conformance/root, and given upstream's pinned requirements with pip 20.3.4 in a private
# site-packages. Running it twice reuses what is there.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT_DIR=$PWD/.build-conformance
PREFIX=$ROOT_DIR/root
PY=$PREFIX/usr/bin/python2.7
WSTEST=$ROOT_DIR/bin/wstest
if [[ -x $WSTEST ]] && "$WSTEST" --help >/dev/null 2>&1; then
    echo "wstest is installed: $WSTEST"
    exit 0
fi
mkdir -p "$ROOT_DIR/apt/lists/partial" "$ROOT_DIR/apt/archives/partial" "$ROOT_DIR/debs" "$PREFIX" "$ROOT_DIR/bin"

# The machine's Debian mirror (whatever the system's apt sources name), with Debian 11's suite.
mirror=$(grep -h -E '^(URIs:|deb )' /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
    | grep -v security | head -1 | sed -E 's/^URIs: *//; s/^deb (\[[^]]*\] )?//; s/ .*//' || true)
[[ -n $mirror ]] || { echo "install-wstest: no Debian mirror in /etc/apt sources" >&2; exit 1; }
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main" >"$ROOT_DIR/apt/sources.list"
APT=(-o "Dir::Etc::SourceList=$ROOT_DIR/apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent"
    -o "Dir::State::Lists=$ROOT_DIR/apt/lists" -o "Dir::Cache=$ROOT_DIR/apt/cache"
    -o "Dir::State::Status=/dev/null" -o "APT::Architecture=amd64"
    -o "Debug::NoLocking=true" -o "APT::Sandbox::User=root")
apt-get "${APT[@]}" update -qq
cd "$ROOT_DIR/debs"
# The interpreter, its standard library, the headers for pip's C extensions, and the Debian 11
# libraries the interpreter's modules link against (OpenSSL 1.1 for ssl, libffi7 for ctypes).
apt-get "${APT[@]}" download -qq python2.7 python2.7-minimal libpython2.7 libpython2.7-minimal \
    libpython2.7-stdlib python2.7-dev libpython2.7-dev libssl1.1 libffi7 libdb5.3 libreadline8 libtinfo6 \
    libncursesw6 libexpat1 zlib1g libsqlite3-0 libbz2-1.0 liblzma5 libmpdec3 libuuid1
for deb in ./*.deb; do dpkg -x "$deb" "$PREFIX"; done
cd "$ROOT_DIR"

# A launcher that finds the private libraries and standard library.
cat >"$ROOT_DIR/bin/python2.7" <<EOF
#!/usr/bin/env bash
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu:$PREFIX/lib/x86_64-linux-gnu\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export PYTHONHOME="$PREFIX/usr"
export PYTHONUSERBASE="$ROOT_DIR/user"
export PYTHONNOUSERSITE=
exec "$PY" "\$@"
EOF
chmod +x "$ROOT_DIR/bin/python2.7"
PY2=$ROOT_DIR/bin/python2.7
"$PY2" -c 'import ssl, zlib, ctypes; print("python", __import__("sys").version.split()[0])'

# pip 20.3.4, the last for Python 2.7, fetched by the system's pip (the machine's own index
# settings) and installed with itself (a wheel runs as `python pip.whl/pip`).
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 2.7 --dest "$ROOT_DIR/wheels" \
    "pip==20.3.4"
WHEEL=$(ls "$ROOT_DIR"/wheels/pip-20.3.4-*.whl)
"$PY2" "$WHEEL/pip" install -q --user --no-warn-script-location "$WHEEL"
# Upstream's pins for Python 2.7 / Autobahn 0.10.9 (autobahntestsuite/requirements.txt), with the
# last setuptools for Python 2; without the "accelerate" extra, which only compiles speedups.
"$PY2" -m pip install -q --user --no-warn-script-location "setuptools==44.1.1" "wheel==0.37.1"
"$PY2" -m pip install -q --user --no-warn-script-location \
    "txaio==2.1.0" "incremental==16.10.1" "pyOpenSSL==19.1.0" "cryptography==3.3.2" "Twisted==19.10.0" \
    "zope.interface==4.6.0" "Jinja2==2.11.3" "MarkupSafe==1.1.1" "Werkzeug==1.0.1" "klein==17.10.0" \
    "service_identity==18.1.0" "unittest2==1.1.0" "six==1.16.0" "autobahn[twisted]==0.10.9" \
    "autobahntestsuite==0.8.2"
cat >"$WSTEST" <<EOF
#!/usr/bin/env bash
exec "$PY2" -m autobahntestsuite.wstest "\$@"
EOF
chmod +x "$WSTEST"
"$WSTEST" --help >/dev/null
echo "wstest is installed: $WSTEST"
