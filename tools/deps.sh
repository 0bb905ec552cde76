#!/bin/sh
# deps.sh — make sure the build dependencies are present: install them with
# apt-get when running as root on Debian, otherwise say exactly what to run.
missing=""
[ -f /usr/include/sqlite3.h ] || missing="$missing libsqlite3-dev"
[ -f /usr/include/zstd.h ] || missing="$missing libzstd-dev"
command -v pkg-config >/dev/null 2>&1 || missing="$missing pkg-config"
command -v cc >/dev/null 2>&1 || missing="$missing gcc"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "deps: installing$missing" >&2
	apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null && exit 0
	echo "deps: apt-get install$missing failed" >&2
	exit 1
fi
echo "deps: missing$missing — install them with: sudo apt-get install -y$missing" >&2
exit 1
