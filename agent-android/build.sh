#!/usr/bin/env bash
# Builds the on-device agent.
#
#   agent-android/build.sh            compile against the SDK's android.jar, dex with d8, write
#                                     agent-android/dist/mobile-agent-android.jar
#   agent-android/build.sh --check    no SDK needed: compile src/ against stubs/ (Java 8 API, as
#                                     Android has it), compile host/ and test/, run every JUnit test;
#                                     the exit status is the tests' result
#   agent-android/build.sh --host DIR compile src/, stubs/ and host/ into DIR (HostMain for the
#                                     conformance tests); prints the classpath to run it with
#
# Environment: ANDROID_HOME (or ANDROID_SDK_ROOT) for the SDK build, MOBILE_AGENT_DIST for another output
# directory than agent-android/dist; MOBILE_AGENT_JSON_JAR, JUNIT_JAR and HAMCREST_JAR override the Debian
# paths of org.json (libandroid-json-java), junit4 and hamcrest.
#
# The SDK build follows build.env, which the Python builder (`python -m pytest_mobile_agent agent
# build`, the plugin's build on first use) reads too: sources, Java level, flags, the lowest platform.
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=build.env
. "$HERE/build.env"
VERSION="$(tr -d ' \r\n' < "$HERE/VERSION")"
BUILD="$HERE/build"
JSON_JAR="${MOBILE_AGENT_JSON_JAR:-/usr/share/java/com.android.json.jar}"
JUNIT_JAR="${JUNIT_JAR:-/usr/share/java/junit4.jar}"
if [ -z "${HAMCREST_JAR:-}" ]; then
    for h in /usr/share/java/hamcrest-core.jar /usr/share/java/hamcrest.jar; do
        if [ -f "$h" ]; then HAMCREST_JAR="$h"; break; fi
    done
fi
read -r -a JAVAC_QUIET <<< "$JAVAC_FLAGS"

die() { echo "build.sh: $*" >&2; exit 2; }

need() {
    command -v "$1" >/dev/null 2>&1 || die "$1 not found: install a JDK 17 (Debian: apt-get install openjdk-17-jdk-headless)"
}

# The Version class, made from build.env's VERSION_TEMPLATE. The ASCII string "mobile-agent-android
# <VERSION>" is the only place the version lives in the code (the host's tests rewrite it to make an
# older agent).
gen_version() {
    local target="$BUILD/gen/$VERSION_CLASS"
    mkdir -p "$(dirname "$target")"
    sed "s/@VERSION@/$VERSION/g" "$HERE/$VERSION_TEMPLATE" > "$target.tmp.$$"
    if ! cmp -s "$target.tmp.$$" "$target" 2>/dev/null; then
        mv "$target.tmp.$$" "$target"
    else
        rm -f "$target.tmp.$$"
    fi
}

sources() { find "$@" -name '*.java' | LC_ALL=C sort; }

# src/ + the generated Version + stubs/, as Java 8 (what Android's runtime offers), into $1.
compile_agent_on_stubs() {
    local out="$1"
    [ -f "$JSON_JAR" ] || die "org.json not found at $JSON_JAR: install libandroid-json-java (Debian) or set MOBILE_AGENT_JSON_JAR"
    rm -rf "$out" && mkdir -p "$out"
    javac "${JAVAC_QUIET[@]}" --release "$JAVA_LEVEL" -cp "$JSON_JAR" -d "$out" \
        $(sources "$HERE/src" "$BUILD/gen" "$HERE/stubs")
}

compile_host() {
    local agent="$1" out="$2"
    rm -rf "$out" && mkdir -p "$out"
    javac "${JAVAC_QUIET[@]}" --release 17 -cp "$agent:$JSON_JAR" -d "$out" $(sources "$HERE/host")
}

check() {
    need javac
    need java
    [ -f "$JUNIT_JAR" ] || die "JUnit 4 not found at $JUNIT_JAR: install junit4 (Debian) or set JUNIT_JAR"
    [ -n "${HAMCREST_JAR:-}" ] && [ -f "$HAMCREST_JAR" ] || die "hamcrest not found: install libhamcrest-java (Debian) or set HAMCREST_JAR"
    gen_version
    # A directory of this run's own, so that concurrent checks in one tree never share classes.
    mkdir -p "$BUILD"
    CHECK="$(mktemp -d "$BUILD/check.XXXXXX")"
    trap 'rm -rf "$CHECK"' EXIT
    compile_agent_on_stubs "$CHECK/agent"
    compile_host "$CHECK/agent" "$CHECK/host"
    local tests="$CHECK/test"
    rm -rf "$tests" && mkdir -p "$tests"
    local cp="$CHECK/agent:$CHECK/host:$JSON_JAR:$JUNIT_JAR:$HAMCREST_JAR"
    javac "${JAVAC_QUIET[@]}" --release 17 -cp "$cp" -d "$tests" $(sources "$HERE/test")
    local classes
    classes=$(cd "$HERE/test" && find . -name '*Test.java' | LC_ALL=C sort | sed -e 's|^\./||' -e 's|\.java$||' -e 's|/|.|g')
    printf 'handlers=java.util.logging.ConsoleHandler\n.level=WARNING\n' > "$CHECK/logging.properties"
    # The stubs are only for compiling: the tests run on the fake platform, never on a stub.
    # the client compiler only, as javac's JVM (build.env): the suite is short, and C2 cost more than it saved
    java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.util.logging.config.file="$CHECK/logging.properties" -cp "$tests:$CHECK/host:$CHECK/agent:$JSON_JAR:$JUNIT_JAR:$HAMCREST_JAR" \
        -Dmobile_agent.repo="$(cd "$HERE/.." && pwd)" org.junit.runner.JUnitCore $classes
}

host() {
    local out="$1"
    need javac
    gen_version
    compile_agent_on_stubs "$out/agent"
    compile_host "$out/agent" "$out/host"
    echo "$out/host:$out/agent:$JSON_JAR"
}

sdk_build() {
    need javac
    local sdk="${ANDROID_HOME:-${ANDROID_SDK_ROOT:-}}"
    local missing=()
    if [ -z "$sdk" ] || [ ! -d "$sdk" ]; then
        missing+=("an Android SDK: set ANDROID_HOME (or ANDROID_SDK_ROOT) to its directory (now: '${sdk}')")
    fi
    local platform_jar="" d8=""
    if [ -n "$sdk" ] && [ -d "$sdk" ]; then
        platform_jar=$(ls -d "$sdk"/platforms/android-*/android.jar 2>/dev/null | sort -V | tail -n 1 || true)
        d8=$(ls -d "$sdk"/build-tools/*/d8 2>/dev/null | sort -V | tail -n 1 || true)
        if [ -n "$platform_jar" ]; then
            local level
            level=$(basename "$(dirname "$platform_jar")" | sed -e 's/^android-//' -e 's/[^0-9].*$//')
            if [ -z "$level" ] || [ "$level" -lt "$MIN_PLATFORM" ]; then
                missing+=("a platform of API $MIN_PLATFORM or newer (the newest installed is $(dirname "$platform_jar")): sdkmanager 'platforms;android-36'")
            fi
        fi
        [ -n "$platform_jar" ] || missing+=("a platform's android.jar: $sdk/platforms/android-*/android.jar (sdkmanager 'platforms;android-36')")
        [ -n "$d8" ] || missing+=("build-tools' d8: $sdk/build-tools/*/d8 (sdkmanager 'build-tools;36.0.0')")
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        {
            echo "build.sh: cannot build the device jar; missing:"
            for m in "${missing[@]}"; do echo "  - $m"; done
            echo "Without an SDK, 'agent-android/build.sh --check' compiles against the stubs and runs the tests."
        } >&2
        exit 2
    fi
    gen_version
    local classes="$BUILD/sdk/classes"
    local dist="${MOBILE_AGENT_DIST:-$HERE/dist}"
    rm -rf "$classes" && mkdir -p "$classes" "$dist"
    # org.json comes from android.jar itself on the device.
    local dirs=()
    for d in $SOURCE_DIRS; do dirs+=("$HERE/$d"); done
    javac "${JAVAC_QUIET[@]}" -source "$JAVA_LEVEL" -target "$JAVA_LEVEL" -bootclasspath "$platform_jar" -cp "$platform_jar" \
        -d "$classes" $(sources "${dirs[@]}" "$BUILD/gen")
    (cd "$classes" && jar cf "$BUILD/sdk/classes.jar" .)
    rm -f "$dist/$JAR_NAME"
    # shellcheck disable=SC2086
    "$d8" $D8_FLAGS --min-api "$MIN_API" --lib "$platform_jar" --output "$dist/$JAR_NAME" "$BUILD/sdk/classes.jar"
    echo "$dist/$JAR_NAME ($(wc -c < "$dist/$JAR_NAME") bytes, version $VERSION)"
}

case "${1:-}" in
    --check) check ;;
    --host) [ -n "${2:-}" ] || die "--host needs an output directory"; host "$2" ;;
    "") sdk_build ;;
    *) die "unknown option $1 (use --check, --host DIR, or nothing for the SDK build)" ;;
esac
