import type { Command } from 'commander';

/**
 * Shell completion scripts generated from commander's own command tree, so a command or option
 * added to a group file completes without anyone editing a script. Each script knows, for every
 * command path (`""` for the program, `log`, `log append`, …), its subcommands, its long options,
 * and which of those take a value (the word after them is no command name).
 */
export const Shells = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof Shells)[number];

export interface CompletionNode {
  /** The words below `baton`, space-separated; '' for the program itself. */
  path: string;
  subcommands: string[];
  /** Long options, with the program's own options on every path. */
  options: string[];
  /** The options among them that take a value. */
  valueOptions: string[];
  /** Its first argument is a WU id (`wu claim <WU>`). */
  wuArgument: boolean;
  /** The options whose value is a WU id (`--wu <WU>`). */
  wuOptions: string[];
  /** Which WU ids it completes (`baton __complete KIND`): every WU for a read, else the WUs not done; null when it takes none. */
  wuIds: WuIdsKind | null;
}

export type WuIdsKind = 'wu-ids' | 'open-wu-ids';

/** The commands that read a WU, or define one (an upsert): they complete every WU id, done ones included. */
const EVERY_WU = new Set(['wu show', 'wu explain', 'wu create', 'mem inbox', 'replay']);

/** Commands the scripts run themselves (`__complete`) are hidden: never offered. */
const visibleSubcommands = (command: Command): Command[] => command.commands.filter((c) => !c.name().startsWith('__'));

export function completionTree(program: Command): CompletionNode[] {
  const globalOptions = program.options.filter((o) => o.long !== undefined);
  const nodes: CompletionNode[] = [];
  const visit = (command: Command, path: string): void => {
    const options = [...(command === program ? [] : command.options), ...globalOptions].filter((o) => o.long !== undefined && !o.hidden);
    const wuArgument = command.registeredArguments[0]?.name() === 'WU';
    const wuOptions = options.filter((o) => / <WU>$/.test(o.flags)).map((o) => o.long!);
    nodes.push({
      path,
      subcommands: visibleSubcommands(command).map((c) => c.name()),
      options: [...new Set([...options.map((o) => o.long!), '--help'])],
      valueOptions: [...new Set(options.filter((o) => o.required || o.optional).map((o) => o.long!))],
      wuArgument,
      wuOptions,
      wuIds: !wuArgument && wuOptions.length === 0 ? null : EVERY_WU.has(path) ? 'wu-ids' : 'open-wu-ids',
    });
    for (const sub of visibleSubcommands(command)) visit(sub, path === '' ? sub.name() : `${path} ${sub.name()}`);
  };
  visit(program, '');
  return nodes;
}

export function completionScript(shell: Shell, program: Command): string {
  const nodes = completionTree(program);
  switch (shell) {
    case 'bash':
      return bashScript(nodes);
    case 'zsh':
      return zshScript(nodes);
    case 'fish':
      return fishScript(nodes);
  }
}

/** Command names and long options are letters, digits and dashes: safe inside single quotes. */
const words = (list: readonly string[]): string => `'${list.join(' ')}'`;

function bashCases(nodes: readonly CompletionNode[], pick: (node: CompletionNode) => string[]): string {
  return nodes.map((n) => `    ${words([n.path])}) echo ${words(pick(n))} ;;`).join('\n');
}

/** The cases of the paths that complete WU ids: which list, whether the first argument is one, which options take one. */
function bashWuCases(nodes: readonly CompletionNode[], pick: (node: CompletionNode) => string[]): string {
  return bashCases(
    nodes.filter((n) => n.wuIds !== null),
    pick,
  );
}

/** The bash function; zsh runs the same one through bashcompinit. */
function bashFunction(nodes: readonly CompletionNode[]): string {
  return `_baton_subcommands() {
  case "$1" in
${bashCases(nodes, (n) => n.subcommands)}
  esac
}
_baton_options() {
  case "$1" in
${bashCases(nodes, (n) => n.options)}
  esac
}
_baton_value_options() {
  case "$1" in
${bashCases(nodes, (n) => n.valueOptions)}
  esac
}
_baton_wu_kind() {
  case "$1" in
${bashWuCases(nodes, (n) => (n.wuIds === null ? [] : [n.wuIds]))}
  esac
}
_baton_wu_argument() {
  case "$1" in
${bashWuCases(nodes, (n) => (n.wuArgument ? ['yes'] : []))}
  esac
}
_baton_wu_options() {
  case "$1" in
${bashWuCases(nodes, (n) => n.wuOptions)}
  esac
}
# The WU ids of the workspace (the --dir typed, if any), from the baton being completed.
_baton_wu_ids() {
  local kind w
  kind="$(_baton_wu_kind "$1")"
  [[ -n "$kind" ]] || return 0
  for w in $(command "\${COMP_WORDS[0]}" \${2:+--dir "$2"} __complete "$kind" 2>/dev/null); do
    [[ "$w" == WU-* ]] && printf '%s\n' "$w"
  done
  return 0
}
_baton() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" path="" word i skip=0 valueof="" dir="" npos=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then
      skip=0
      if [[ "$valueof" == --dir ]]; then dir="$word"; fi
      continue
    fi
    case "$word" in
      --dir=*) dir="\${word#--dir=}"; continue ;;
      -*=*) continue ;;
      -*) if [[ " $(_baton_value_options "$path") " == *" $word "* ]]; then skip=1; valueof="$word"; fi; continue ;;
    esac
    if [[ " $(_baton_subcommands "$path") " == *" $word "* ]]; then path="\${path:+$path }$word"; else npos=$((npos + 1)); fi
  done
  if ((skip)); then
    if [[ " $(_baton_wu_options "$path") " == *" $valueof "* ]]; then
      COMPREPLY=($(compgen -W "$(_baton_wu_ids "$path" "$dir")" -- "$cur"))
    else
      COMPREPLY=($(compgen -f -- "$cur"))
    fi
    return 0
  fi
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_baton_options "$path")" -- "$cur"))
  elif ((npos == 0)) && [[ -n "$(_baton_wu_argument "$path")" ]]; then
    COMPREPLY=($(compgen -W "$(_baton_wu_ids "$path" "$dir")" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "$(_baton_subcommands "$path")" -- "$cur"))
  fi
  return 0
}`;
}

function bashScript(nodes: readonly CompletionNode[]): string {
  return `# baton completion for bash: eval "$(baton completion bash)" or save it in ~/.local/share/bash-completion/completions/baton
${bashFunction(nodes)}
complete -o default -F _baton baton
`;
}

function zshScript(nodes: readonly CompletionNode[]): string {
  return `#compdef baton
# baton completion for zsh: eval "$(baton completion zsh)" in ~/.zshrc (after compinit)
autoload -U +X bashcompinit && bashcompinit
${bashFunction(nodes)}
complete -o default -F _baton baton
`;
}

/**
 * fish asks per completion whether a condition holds; `__baton_path` walks the command line the
 * way the bash function does and prints the command path typed so far.
 */
function fishScript(nodes: readonly CompletionNode[]): string {
  const lines = [
    '# baton completion for fish: baton completion fish > ~/.config/fish/completions/baton.fish',
    'function __baton_subcommands',
    '  switch $argv[1]',
    ...nodes.map((n) => `    case ${words([n.path])}\n      echo ${words(n.subcommands)}`),
    '  end',
    'end',
    'function __baton_value_options',
    '  switch $argv[1]',
    ...nodes.map((n) => `    case ${words([n.path])}\n      echo ${words(n.valueOptions)}`),
    '  end',
    'end',
    'function __baton_path',
    '  set -l path ""',
    '  set -l skip 0',
    '  for word in (commandline -opc)[2..-1]',
    '    if test $skip = 1; set skip 0; continue; end',
    "    if string match -q -- '-*=*' $word; continue; end",
    "    if string match -q -- '-*' $word",
    '      if contains -- $word (string split -- " " (__baton_value_options "$path")); set skip 1; end',
    '      continue',
    '    end',
    '    if contains -- $word (string split -- " " (__baton_subcommands "$path"))',
    '      if test -z "$path"; set path $word; else; set path "$path $word"; end',
    '    end',
    '  end',
    '  echo $path',
    'end',
    'function __baton_at',
    '  set -l path (__baton_path)',
    '  test "$path" = "$argv[1]"',
    'end',
    '# The WU ids of the workspace, from the baton being completed.',
    'function __baton_wu_ids',
    '  for w in (command (commandline -opc)[1] __complete $argv[1] 2>/dev/null)',
    "    if string match -q -- 'WU-*' $w; echo $w; end",
    '  end',
    'end',
    'complete -c baton -f',
  ];
  for (const n of nodes) {
    const when = `'__baton_at ${JSON.stringify(n.path)}'`;
    for (const sub of n.subcommands) lines.push(`complete -c baton -n ${when} -a ${sub}`);
    const ids = n.wuIds === null ? '' : ` -a '(__baton_wu_ids ${n.wuIds})'`;
    if (n.wuArgument) lines.push(`complete -c baton -n ${when}${ids}`);
    for (const option of n.options) {
      const value = n.wuOptions.includes(option) ? ` -x${ids}` : n.valueOptions.includes(option) ? ' -r' : '';
      lines.push(`complete -c baton -n ${when} -l ${option.slice(2)}${value}`);
    }
  }
  return lines.join('\n') + '\n';
}
