# Sourced by the setup scripts (which define `log`). apt_install_missing PACKAGE...: installs, with one apt-get update
# first, those of the Debian packages that dpkg does not list as installed; says so when all are there.
apt_install_missing() {
    local missing=() package started
    for package in "$@"; do
        dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        log "$* present"
        return
    fi
    log "apt-get install ${missing[*]}"
    started=$(date +%s)
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    log "apt took $(( $(date +%s) - started ))s"
}
