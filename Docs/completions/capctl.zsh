#compdef capctl

__capctl_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__capctl_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __capctl_complete "${completions[@]:0:-1}"
    fi
}

__capctl_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_capctl() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'status:Show every capability, flag and gate with its current status, without prompting.'
            'check:Evaluate a gate, asking for authorization where needed (unless --non-interactive).'
            'authorize:Request authorization for a capability (for PAM: the password prompt).'
            'run:Run a command only if a gate holds, and exit with its status.'
            'flags:List and evaluate feature flags.'
            'validate:Check policy and flag files, printing every error with file:line:column.'
            'watch:Print a line each time a capability'\''s or gate'\''s status or a flag'\''s value changes, until interrupted.'
            'schema:Print the JSON Schema of policy files, generated from the capability kinds capctl knows.'
            'explain:Decide a gate and print every requirement with passed, failed or not checked, and why.'
            'analyze:Show what a gate can come to over every status of its capabilities and value of its flags.'
            'test:Run policy test files: each case decides a gate with the statuses it assumes.'
            'diff:Compare two policies gate by gate: unchanged, added, removed, or decided differently and when.'
            'replay:Decide recorded decisions again from their audit records, and say whether the outcome is the same.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        status|check|authorize|run|flags|validate|watch|schema|explain|analyze|test|diff|replay|help)
            "_capctl_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_capctl_status() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '*:names:'
        '--origin[Show where each capability, gate, flag source and setting was defined, and the definitions it replaced.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_check() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        ':gate:'
        '--non-interactive[Never ask anyone (no password prompt, no polkit agent); report what would be asked.]'
        '--password-stdin[Answer a password prompt with one line of standard input instead of the terminal.]'
        '--explain[Print every requirement with passed, failed or not checked, and why.]'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '--for-process[Decide for this process (root only)\: its pid, its start time (field 22 of /proc/PID/stat) and its uid, refused unless all three still hold.]:pid,start-time,uid:'
        '--for-user[Decide for this user (root only).]:name:'
        '*--assume[Decide as if the capability had this status (authorized, denied, unavailable, notDetermined)\: its backend is not consulted and nobody is asked (repeatable).]:name=status:'
        '*--assume-flag[Decide as if the flag had this value, as JSON (true, 3, "blue"; anything else is a string) (repeatable).]:key=value:'
        '--exec-condition[Exit as systemd'\''s ExecCondition= expects\: 0 when the gate holds, 1 (skip the unit) when it does not, 255 (fail the unit) on a policy or usage error.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_authorize() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        ':name:'
        '--forget[Forget the logins kept for this terminal and session (as sudo -k), then stop.]'
        '--forget-all[Forget every login kept for you, in any terminal or session (as sudo -K), then stop.]'
        '--extend[Make the login kept for this terminal and session good for its whole keep again, asking only when none is kept (as sudo -v).]'
        '--user[The user to authenticate, for a PAM capability whose policy names none.]:user:'
        '--password-stdin[Answer a password prompt with one line of standard input instead of the terminal.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_run() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        ':gate:'
        '--non-interactive[Never ask anyone (no password prompt, no polkit agent); report what would be asked.]'
        '--password-stdin[Answer a password prompt with one line of standard input instead of the terminal.]'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '--capabilities[Start the command with only these Linux capabilities (comma-separated, such as CAP_NET_BIND_SERVICE; empty for none).]:LIST:'
        '--as-user[Decide the gate for this user and run the command as the user (root only).]:name:'
        '*:command:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_flags() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:Every flag with its value, variant and reason.'
            'get:Evaluate one flag, with OpenFeature'\''s evaluation details.'
            'sources:Each flag service the policy names: URL, state, last success and age, ETag, problem.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|get|sources)
            "_capctl_flags_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_capctl_flags_list() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '*--file[Use this flag definition file instead of the policy'\''s flags (repeatable).]:path:'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_flags_get() {
    local -i ret=1
    local -ar ___type=('bool' 'string' 'int' 'double' 'object')
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        ':key:'
        '--type[The type to evaluate as (the flag'\''s own type when omitted).]:type:{__capctl_complete "${___type[@]}"}'
        '--default[The value to return when the flag cannot be evaluated.]:default:'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '*--file[Use this flag definition file instead of the policy'\''s flags (repeatable).]:path:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_flags_sources() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_validate() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '*:paths:'
        '--installed[Check the policy PATHs together with the installed policy (the search path), in the place each would take.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_watch() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '*:names:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_schema() {
    local -i ret=1
    local -ar arg_specs=(
        '--json[Print JSON (the schema is JSON either way).]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_explain() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        ':gate:'
        '--non-interactive[Never ask anyone (no password prompt, no polkit agent); report what would be asked.]'
        '--password-stdin[Answer a password prompt with one line of standard input instead of the terminal.]'
        '*--context[A flag evaluation context attribute, laid over the host'\''s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.]:key=value:'
        '--targeting-key[The targeting key flags are evaluated with (the host name by default).]:targeting-key:'
        '--for-process[Decide for this process (root only)\: its pid, its start time (field 22 of /proc/PID/stat) and its uid, refused unless all three still hold.]:pid,start-time,uid:'
        '--for-user[Decide for this user (root only).]:name:'
        '*--assume[Decide as if the capability had this status (authorized, denied, unavailable, notDetermined)\: its backend is not consulted and nobody is asked (repeatable).]:name=status:'
        '*--assume-flag[Decide as if the flag had this value, as JSON (true, 3, "blue"; anything else is a string) (repeatable).]:key=value:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_analyze() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        ':gate:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_test() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '*:paths:'
        '--coverage[Count which outcomes of which requirement nodes the cases reached, and list the rest.]'
        '--minimum-coverage[Fail when fewer than this percentage of node outcomes were reached (an integer, compared exactly).]:minimum-coverage:'
        '--junit[Write the results as JUnit XML to this file, for CI.]:junit:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_diff() {
    local -i ret=1
    local -ar arg_specs=(
        '--json[Print JSON.]'
        '--layers[OLD and NEW are search paths\: ROOT\[\:ROOT...\]\[\:user=DIR\], lowest precedence first.]'
        ':old:'
        ':new:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_replay() {
    local -i ret=1
    local -ar arg_specs=(
        '*--policy[Use this policy file instead of the search path (repeatable).]:path:'
        '--json[Print JSON instead of a table.]'
        '*:records:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_capctl_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _capctl ]]; then
    _capctl "${@}"
else
    compdef _capctl capctl
fi
