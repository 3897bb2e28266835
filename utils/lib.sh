# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
#
# utils/lib.sh -- what the scripts of utils/ share; sourced, not run.

# junit_case FILE CLASS NAME OUTCOME [MESSAGE]: records one test case, with
# OUTCOME passed, failed or skipped, in the JUnit report FILE, which is
# whole after every call: a run stopped half-way still leaves a report of
# what it ran. utils/junit-count reads it.
junit_case() {
	local file=$1 class=$2 name=$3 outcome=$4 message=${5:-} body=
	case $outcome in
	failed) body="<failure message=\"$(xml_escape "$message")\"/>" ;;
	skipped) body="<skipped message=\"$(xml_escape "$message")\"/>" ;;
	passed) ;;
	*) echo "junit_case: unknown outcome $outcome" >&2; return 2 ;;
	esac
	printf '  <testcase classname="%s" name="%s">%s</testcase>\n' \
		"$(xml_escape "$class")" "$(xml_escape "$name")" "$body" >>"$file.cases"
	{
		echo '<?xml version="1.0" encoding="UTF-8"?>'
		echo '<testsuite>'
		cat "$file.cases"
		echo '</testsuite>'
	} >"$file.new" && mv -f "$file.new" "$file"
}

# junit_start FILE: an empty report, replacing an earlier one
junit_start() {
	rm -f "$1.cases"
	: >"$1.cases"
	printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuite>\n</testsuite>\n' >"$1"
}

# (bash 5.2 reads an unescaped & in a replacement as the matched text)
xml_escape() {
	local s=${1//&/\&amp;}
	s=${s//</\&lt;}
	s=${s//>/\&gt;}
	s=${s//\"/\&quot;}
	printf '%s' "$s"
}
