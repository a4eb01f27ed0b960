function __capctl_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __capctl_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __capctl_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __capctl_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __capctl_parse_tokens -S
    set -l unparsed_tokens (__capctl_tokens -pc)
    switch $unparsed_tokens[1]
    case 'capctl'
        __capctl_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'status'
            __capctl_parse_subcommand -r 1 'policy=+' 'json' 'context=+' 'targeting-key=' 'origin' 'version' 'h/help'
        case 'check'
            __capctl_parse_subcommand 1 'policy=+' 'json' 'non-interactive' 'password-stdin' 'explain' 'context=+' 'targeting-key=' 'for-process=' 'for-user=' 'assume=+' 'assume-flag=+' 'exec-condition' 'version' 'h/help'
        case 'authorize'
            __capctl_parse_subcommand 1 'policy=+' 'json' 'forget' 'forget-all' 'extend' 'user=' 'password-stdin' 'version' 'h/help'
        case 'run'
            __capctl_parse_subcommand -r 2 'policy=+' 'json' 'non-interactive' 'password-stdin' 'context=+' 'targeting-key=' 'capabilities=' 'as-user=' 'version' 'h/help'
        case 'flags'
            __capctl_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __capctl_parse_subcommand 0 'policy=+' 'json' 'file=+' 'context=+' 'targeting-key=' 'version' 'h/help'
            case 'get'
                __capctl_parse_subcommand 1 'policy=+' 'json' 'type=' 'default=' 'context=+' 'targeting-key=' 'file=+' 'version' 'h/help'
            case 'sources'
                __capctl_parse_subcommand 0 'policy=+' 'json' 'version' 'h/help'
            end
        case 'validate'
            __capctl_parse_subcommand -r 1 'policy=+' 'json' 'installed' 'version' 'h/help'
        case 'watch'
            __capctl_parse_subcommand -r 1 'policy=+' 'json' 'context=+' 'targeting-key=' 'version' 'h/help'
        case 'schema'
            __capctl_parse_subcommand 0 'json' 'version' 'h/help'
        case 'explain'
            __capctl_parse_subcommand 1 'policy=+' 'json' 'non-interactive' 'password-stdin' 'context=+' 'targeting-key=' 'for-process=' 'for-user=' 'assume=+' 'assume-flag=+' 'version' 'h/help'
        case 'analyze'
            __capctl_parse_subcommand 1 'policy=+' 'json' 'version' 'h/help'
        case 'test'
            __capctl_parse_subcommand -r 1 'policy=+' 'json' 'coverage' 'minimum-coverage=' 'junit=' 'version' 'h/help'
        case 'diff'
            __capctl_parse_subcommand 2 'json' 'layers' 'version' 'h/help'
        case 'replay'
            __capctl_parse_subcommand -r 1 'policy=+' 'json' 'version' 'h/help'
        case 'help'
            __capctl_parse_subcommand -r 1 'version'
        end
    end
end

function __capctl_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __capctl_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __capctl_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __capctl_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__capctl_tokens -p)
    if test -z "$(__capctl_tokens -t)"
        set -l index (count (__capctl_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'capctl' -f
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'status' -d 'Show every capability, flag and gate with its current status, without prompting.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'check' -d 'Evaluate a gate, asking for authorization where needed (unless --non-interactive).'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'authorize' -d 'Request authorization for a capability (for PAM: the password prompt).'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'run' -d 'Run a command only if a gate holds, and exit with its status.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'flags' -d 'List and evaluate feature flags.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'validate' -d 'Check policy and flag files, printing every error with file:line:column.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'watch' -d 'Print a line each time a capability\'s or gate\'s status or a flag\'s value changes, until interrupted.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'schema' -d 'Print the JSON Schema of policy files, generated from the capability kinds capctl knows.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'explain' -d 'Decide a gate and print every requirement with passed, failed or not checked, and why.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'analyze' -d 'Show what a gate can come to over every status of its capabilities and value of its flags.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'test' -d 'Run policy test files: each case decides a gate with the statuses it assumes.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'diff' -d 'Compare two policies gate by gate: unchanged, added, removed, or decided differently and when.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'replay' -d 'Decide recorded decisions again from their audit records, and say whether the outcome is the same.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status" origin' -l 'origin' -d 'Show where each capability, gate, flag source and setting was defined, and the definitions it replaced.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" non-interactive' -l 'non-interactive' -d 'Never ask anyone (no password prompt, no polkit agent); report what would be asked.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" password-stdin' -l 'password-stdin' -d 'Answer a password prompt with one line of standard input instead of the terminal.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" explain' -l 'explain' -d 'Print every requirement with passed, failed or not checked, and why.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" for-process' -l 'for-process' -d 'Decide for this process (root only): its pid, its start time (field 22 of /proc/PID/stat) and its uid, refused unless all three still hold.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" for-user' -l 'for-user' -d 'Decide for this user (root only).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check"' -l 'assume' -d 'Decide as if the capability had this status (authorized, denied, unavailable, notDetermined): its backend is not consulted and nobody is asked (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check"' -l 'assume-flag' -d 'Decide as if the flag had this value, as JSON (true, 3, "blue"; anything else is a string) (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" exec-condition' -l 'exec-condition' -d 'Exit as systemd\'s ExecCondition= expects: 0 when the gate holds, 1 (skip the unit) when it does not, 255 (fail the unit) on a policy or usage error.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl check" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" forget' -l 'forget' -d 'Forget the logins kept for this terminal and session (as sudo -k), then stop.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" forget-all' -l 'forget-all' -d 'Forget every login kept for you, in any terminal or session (as sudo -K), then stop.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" extend' -l 'extend' -d 'Make the login kept for this terminal and session good for its whole keep again, asking only when none is kept (as sudo -v).'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" user' -l 'user' -d 'The user to authenticate, for a PAM capability whose policy names none.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" password-stdin' -l 'password-stdin' -d 'Answer a password prompt with one line of standard input instead of the terminal.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl authorize" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" non-interactive' -l 'non-interactive' -d 'Never ask anyone (no password prompt, no polkit agent); report what would be asked.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" password-stdin' -l 'password-stdin' -d 'Answer a password prompt with one line of standard input instead of the terminal.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" capabilities' -l 'capabilities' -d 'Start the command with only these Linux capabilities (comma-separated, such as CAP_NET_BIND_SERVICE; empty for none).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" as-user' -l 'as-user' -d 'Decide the gate for this user and run the command as the user (root only).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl run" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl flags" -eq 1' -fa 'list' -d 'Every flag with its value, variant and reason.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl flags" -eq 1' -fa 'get' -d 'Evaluate one flag, with OpenFeature\'s evaluation details.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_positional "capctl flags" -eq 1' -fa 'sources' -d 'Each flag service the policy names: URL, state, last success and age, ETag, problem.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list"' -l 'file' -d 'Use this flag definition file instead of the policy\'s flags (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get" type' -l 'type' -d 'The type to evaluate as (the flag\'s own type when omitted).' -rfka 'bool string int double object'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get" default' -l 'default' -d 'The value to return when the flag cannot be evaluated.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get"' -l 'file' -d 'Use this flag definition file instead of the policy\'s flags (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags get" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags sources"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags sources" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags sources" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl flags sources" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl validate"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl validate" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl validate" installed' -l 'installed' -d 'Check the policy PATHs together with the installed policy (the search path), in the place each would take.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl validate" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl validate" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl watch"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl watch" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl watch"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl watch" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl watch" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl schema" json' -l 'json' -d 'Print JSON (the schema is JSON either way).'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl schema" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl schema" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" non-interactive' -l 'non-interactive' -d 'Never ask anyone (no password prompt, no polkit agent); report what would be asked.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" password-stdin' -l 'password-stdin' -d 'Answer a password prompt with one line of standard input instead of the terminal.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain"' -l 'context' -d 'A flag evaluation context attribute, laid over the host\'s (repeatable). A value that parses as JSON (a number, true, false, null, a quoted string, an array, an object) has that type; anything else is a string.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" targeting-key' -l 'targeting-key' -d 'The targeting key flags are evaluated with (the host name by default).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" for-process' -l 'for-process' -d 'Decide for this process (root only): its pid, its start time (field 22 of /proc/PID/stat) and its uid, refused unless all three still hold.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" for-user' -l 'for-user' -d 'Decide for this user (root only).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain"' -l 'assume' -d 'Decide as if the capability had this status (authorized, denied, unavailable, notDetermined): its backend is not consulted and nobody is asked (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain"' -l 'assume-flag' -d 'Decide as if the flag had this value, as JSON (true, 3, "blue"; anything else is a string) (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl explain" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl analyze"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl analyze" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl analyze" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl analyze" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test" coverage' -l 'coverage' -d 'Count which outcomes of which requirement nodes the cases reached, and list the rest.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test" minimum-coverage' -l 'minimum-coverage' -d 'Fail when fewer than this percentage of node outcomes were reached (an integer, compared exactly).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test" junit' -l 'junit' -d 'Write the results as JUnit XML to this file, for CI.' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl test" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl diff" json' -l 'json' -d 'Print JSON.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl diff" layers' -l 'layers' -d 'OLD and NEW are search paths: ROOT[:ROOT...][:user=DIR], lowest precedence first.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl diff" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl diff" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl replay"' -l 'policy' -d 'Use this policy file instead of the search path (repeatable).' -rfka ''
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl replay" json' -l 'json' -d 'Print JSON instead of a table.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl replay" version' -l 'version' -d 'Show the version.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl replay" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'capctl' -n '__capctl_should_offer_completions_for_flags_or_options "capctl help" version' -l 'version' -d 'Show the version.'
