# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# utils/lib.sh -- what the project's scripts share; sourced, not run.

# guest_crash CONSOLE...: the line of the guest console logs that tells
# their kernel crashed (a double fault, a panic); false when none does
guest_crash() {
	grep -hoaEm 1 'PANIC: double fault[^[:cntrl:]]*|Kernel panic[^[:cntrl:]]*' "$@" \
		2>/dev/null | head -n 1 | grep .
}

# say MESSAGE: MESSAGE on stderr, after the script's name
say() { echo "${0##*/}: $*" >&2; }

# die_usage MESSAGE: bad usage: MESSAGE and the script's usage, exit 2
die_usage() { say "$*"; usage >&2; exit 2; }

# usage: the script's header comment from line 3 on, unless it has its own
declare -F usage >/dev/null || usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; }

# number OPTION VALUE: bad usage unless VALUE, OPTION's, is a number
number() { [[ ${2:-} =~ ^[0-9]+$ ]] || die_usage "$1 wants a number"; }

# die_env MESSAGE: the environment let the script down: exit 125
die_env() { say "$*"; exit 125; }

# nap S: sleeps S seconds (fractions too) starting no process (an exec costs
# much of a second under the VM's emulation): it reads from a FIFO no one
# writes to, opened read-write so that the open does not block. nap_open
# opens one as nap_fd, on tmpfs (9p, the VM's /tmp, has none), unnamed once open.
nap() { read -rt "$1" -u "$nap_fd" || true; }
nap_open() {
	local fifo=/dev/shm/nap.$$.$RANDOM
	mkfifo -m 600 "$fifo" && exec {nap_fd}<>"$fifo" && rm -f -- "$fifo"
}

# as_root COMMAND...: COMMAND as root, through sudo when this is not root
as_root() {
	if ((EUID == 0)); then "$@"; return; fi
	command -v sudo >/dev/null && { sudo "$@"; return; }
	die_env "need root (or sudo) to run: $*"
}

# install_packages [APT_OPTION...] PACKAGE...: the PACKAGEs not installed yet,
# installed with apt-get as root, saying which; exit 125 when that cannot be done
install_packages() {
	local options=() missing='' pkg
	while [[ ${1:-} == -* ]]; do
		options+=("$1")
		shift
	done
	for pkg; do
		[[ $(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null) == "install ok installed" ]] ||
			missing+=${missing:+ }$pkg
	done
	[[ -z $missing ]] && return 0
	command -v apt-get >/dev/null ||
		die_env "apt-get not found; install by hand: $missing"
	say "installing $missing"
	as_root apt-get update -qq >&2 || die_env "apt-get update failed"
	# shellcheck disable=SC2086 # one word a package
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${options[@]}" \
		$missing >/dev/null ||
		die_env "apt-get install failed"
}

# os_release FIELD: FIELD (VERSION_CODENAME, VERSION_ID) of /etc/os-release, or empty
# shellcheck disable=SC1091
os_release() { (. /etc/os-release 2>/dev/null && echo "${!1:-}"); }

# project_version: the version of project() in the CMakeLists.txt on stdin
project_version() { sed -n 's/^project(librpma VERSION \([0-9][0-9.]*\).*/\1/p'; }

# copy_source TO: the tree at $TOP as git sees it (tracked files and
# untracked ones not ignored; outside git, all but build*/) copied to TO
copy_source() {
	mkdir -p "$1" || return 1
	if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "$TOP" ls-files -z --cached --others --exclude-standard |
			tar -C "$TOP" --null --ignore-failed-read -T - -c 2>/dev/null | tar -C "$1" -x
	else
		tar -C "$TOP" --exclude='./build*' -c . | tar -C "$1" -x
	fi
}

# mount_at SOURCE TARGET [OPTIONS]: mount OPTIONS SOURCE TARGET, undone
# (latest first) by unmount_all, which the caller's EXIT trap runs
mounted=()
mount_at() { mount "${@:3}" "$1" "$2" && mounted=("$2" "${mounted[@]}"); }
unmount_all() {
	local dir
	for dir in "${mounted[@]}"; do
		unmount "$dir"
	done
	mounted=()
}

# unmount DIR: DIR unmounted, lazily when busy
unmount() { umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null || true; }

# remove_unmounted DIR: DIR removed, after unmounting what is still mounted in
# it (an umount that failed, a run killed before its EXIT trap); refused while a
# mount stays, for rm (even --one-file-system) would empty a bind-mounted folder
remove_unmounted() {
	local dir left
	while read -r dir; do
		unmount "$dir"
	done < <(mounts_under "$1" | sort -r)
	left=$(mounts_under "$1")
	if [[ -n $left ]]; then
		say "not removing $1: still mounted there: ${left//$'\n'/ }"
		return 1
	fi
	rm -rf --one-file-system -- "$1"
}

# mounts_under DIR: the mount points at DIR or below it, one a line
mounts_under() {
	local dir
	dir=$(realpath -m -- "$1")
	findmnt -rn -o TARGET | awk -v dir="$dir" '$0 == dir || index($0, dir "/") == 1'
}

# mount_system ROOT: this machine's /proc, /sys, /dev, /dev/pts and
# resolv.conf in the Debian root at ROOT, for chroot
mount_system() {
	local dir
	for dir in proc sys dev dev/pts; do
		mount_at "/$dir" "$1/$dir" --bind || return 1
	done
	cp -L /etc/resolv.conf "$1/etc/resolv.conf" 2>/dev/null || true
}

# debian_mirror: the Debian archive the host's apt uses
debian_mirror() {
	local uri
	uri=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources \
		2>/dev/null | head -n 1)
	[[ -n $uri ]] || uri=$(awk '$1 == "deb" && $2 !~ /^\[/ { print $2; exit }' \
		/etc/apt/sources.list 2>/dev/null)
	echo "${uri:-http://deb.debian.org/debian}"
}

# debian_root SUITE DIR [PACKAGES]: a minimal root of Debian SUITE made at
# DIR by debootstrap from the host's mirror, with the host's apt checks of
# dates and its proxy, and packages installed in it starting no service
debian_root() {
	local suite=$1 dir=$2 include=${3:-}
	debootstrap --variant=minbase ${include:+--include="$include"} "$suite" "$dir" \
		"$(debian_mirror)" || return 1
	grep -lE 'Acquire::(Check-Valid-Until|Check-Date|https?::Proxy)' \
		/etc/apt/apt.conf.d/* 2>/dev/null | xargs -r cp -t "$dir/etc/apt/apt.conf.d/"
	printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
	chmod 755 "$dir/usr/sbin/policy-rc.d"
}

# shared_fio_tarball TOP: exports ../shared/sources beside the tree TOP (this
# project's CI machines have it, outside the project), if there, as
# FIO_SOURCE_TARBALL: fio/fio-source takes the installed fio's release tarball
# from there (checked against its SHA256SUMS) when Debian's source cannot be had
shared_fio_tarball() {
	local dir=$1/../shared/sources
	[[ -d $dir && -z ${FIO_SOURCE_TARBALL:-} ]] || return 0
	FIO_SOURCE_TARBALL=$(realpath -- "$dir")
	export FIO_SOURCE_TARBALL
}

# The two-host link's tc tools: a root netem qdisc (handle 1:) and clsact
# (ingress and egress filters) on eth0, which link_install adds as a host boots
# (utils/rxe-vm --hosts 2), before rxe0 exists: a qdisc added or removed while
# rxe sends fails its QP, QP1 too (doc/FAILURES.md, "A qdisc swapped under a
# QP"), so later only netem's parameters change and filters come and go.
link_install() {
	tc qdisc add dev eth0 root handle 1: netem &&
		tc qdisc add dev eth0 clsact
}

# link_netem_clear: netem impairs nothing. A netem change keeps every
# parameter it does not name, so this names them all.
link_netem_clear() {
	tc qdisc change dev eth0 root netem delay 0 0 0% loss 0% 0% \
		duplicate 0% 0% corrupt 0% 0% reorder 0% 0%
}

# link_netem ARGS...: netem's parameters are ARGS and no others
link_netem() { link_netem_clear && tc qdisc change dev eth0 root netem "$@"; }

# link_cut: nothing eth0 sends or receives gets through (link_reset mends it)
link_cut() { link_netem loss 100% && tc filter add dev eth0 ingress pref 1 matchall action drop; }

# link_reset: no impairment and no filter on eth0
link_reset() {
	link_netem_clear && tc filter del dev eth0 ingress &&
		tc filter del dev eth0 egress
}

# link_intact: true when eth0's qdiscs are the ones link_install put there
link_intact() {
	local shown
	shown=$(tc qdisc show dev eth0) &&
		[[ $shown == *"qdisc netem 1: root"* && $shown == *"qdisc clsact ffff:"* ]]
}

# acks_drop_start: this host drops every RDMA acknowledgement it sends, on
# link_install's clsact (a peer's last message then never completes on its
# side); acks_drop_stop undoes it. RoCEv2 is UDP to port 4791, its BTH's first
# byte (after 20 bytes of IP and 8 of UDP header) the opcode, 0x11 an RC ACK.
acks_drop_start() {
	tc filter add dev eth0 egress protocol ip prio 1 u32 match ip protocol 17 0xff \
		match ip dport 4791 0xffff match u8 0x11 0xff at 28 action drop
}
acks_drop_stop() { tc filter del dev eth0 egress prio 1 2>/dev/null; }

# acks_drop_report: says how many acknowledgements acks_drop_start's
# filter dropped; false when none
acks_drop_report() {
	local dropped
	dropped=$(tc -s filter show dev eth0 egress |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n 1)
	echo "acknowledgements dropped: ${dropped:-none}"
	((${dropped:-0} > 0))
}
