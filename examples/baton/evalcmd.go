package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/batonhq/baton/continuity"
	"github.com/batonhq/baton/continuity/judge"
	"github.com/batonhq/baton/continuity/judge/eval"
)

// EvalCmd runs a judge over a labelled set and prints the seed's four
// figures beside the validation bar. It opens no store.
type EvalCmd struct {
	Dir        string        `arg:"" type:"existingdir" help:"Directory of labelled sessions, one *.json file each (see continuity/judge/eval)."`
	Judge      string        `default:"reference" enum:"reference,llm" help:"The judge: reference (deterministic, free) or llm (an Anthropic-Messages-compatible endpoint)."`
	JSON       bool          `name:"json" help:"Print the report as JSON."`
	Check      bool          `help:"Exit 1 when a figure misses its bar."`
	JudgeURL   string        `name:"judge-url" help:"The LLM judge's Messages endpoint (default $BATON_JUDGE_URL)."`
	JudgeModel string        `name:"judge-model" help:"The LLM judge's model (default $BATON_JUDGE_MODEL)."`
	MaxTokens  int           `name:"max-tokens" help:"Output tokens per LLM call (default 4096)."`
	Timeout    time.Duration `default:"60s" help:"Bound on one LLM call."`
	PriceIn    int64         `name:"price-in" help:"Micro-USD per million input tokens (3000000 is $3/MTok), for the cost estimate."`
	PriceOut   int64         `name:"price-out" help:"Micro-USD per million output tokens."`
	CapTokens  int64         `name:"cap-tokens" help:"Stop calling the LLM once this many tokens are spent (0: no cap)."`
	CapCost    int64         `name:"cap-micro-usd" help:"Stop calling the LLM once this much is spent, in micro-USD (0: no cap)."`
}

// Help details the environment and the exit statuses.
func (c *EvalCmd) Help() string {
	return `Each line is a figure of the session-continuity validation bar, measured over the set, with the bar beside it and PASS or FAIL: commitment recall (> 0%), overall recall (> 26%), spurious-resolve rate (<= 5%), duplicate rate (<= 5%).

The LLM judge reads BATON_JUDGE_URL (the Messages endpoint, e.g. https://api.anthropic.com/v1/messages), BATON_JUDGE_KEY (sent as x-api-key; only ever read from the environment) and BATON_JUDGE_MODEL; --judge-url and --judge-model override the first and last. It meters as $BATON_TENANT. A session whose call fails counts as resolving nothing and is listed.

Exit status: 0 when the set was judged (whatever the figures, unless --check); 1 when the set or the judge's configuration is invalid, or with --check when a figure misses its bar; 2 on a usage error.`
}

// errBarMissed is what --check returns when a figure misses its bar.
var errBarMissed = errors.New("a figure misses the validation bar")

// Run loads the set, judges every session and prints the report.
func (c *EvalCmd) Run(ctx context.Context, env *Env) error {
	sessions, err := eval.Load(c.Dir)
	if err != nil {
		return err
	}
	j, err := c.judge(env)
	if err != nil {
		return err
	}
	r, err := eval.Run(ctx, j, env.Tenant, sessions)
	if err != nil {
		return err
	}
	r.Judge = c.Judge
	if c.JSON {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(r)
	} else {
		err = eval.WriteText(env.Stdout, r)
	}
	if err == nil && c.Check && !r.Pass() {
		err = errBarMissed
	}
	return err
}

// judge makes the judge the flags and the environment name.
func (c *EvalCmd) judge(env *Env) (continuity.Judge, error) {
	if c.Judge == "reference" {
		return judge.Reference{}, nil
	}
	url, model := c.JudgeURL, c.JudgeModel
	if url == "" {
		url = env.JudgeURL
	}
	if model == "" {
		model = env.JudgeModel
	}
	if url == "" || model == "" {
		return nil, fmt.Errorf("the llm judge needs an endpoint and a model: set BATON_JUDGE_URL and BATON_JUDGE_MODEL (or --judge-url, --judge-model), and BATON_JUDGE_KEY")
	}
	j, err := judge.NewLLM(judge.LLMConfig{URL: url, APIKey: env.JudgeKey, Model: model, MaxTokens: c.MaxTokens, Timeout: c.Timeout,
		PriceInPerMTok: c.PriceIn, PriceOutPerMTok: c.PriceOut, Cap: judge.Cap{Tokens: c.CapTokens, MicroUSD: c.CapCost}})
	if err != nil {
		return nil, flagsErr(err)
	}
	return j, nil
}

// llmFlags names, for each LLMConfig field judge.NewLLM may refuse, the
// flag or variable of `baton eval` that sets it.
var llmFlags = map[string]string{
	"url":             "--judge-url (or BATON_JUDGE_URL)",
	"apiKey":          "BATON_JUDGE_KEY",
	"model":           "--judge-model (or BATON_JUDGE_MODEL)",
	"maxTokens":       "--max-tokens",
	"timeout":         "--timeout",
	"priceInPerMTok":  "--price-in",
	"priceOutPerMTok": "--price-out",
	"cap.tokens":      "--cap-tokens",
	"cap.microUsd":    "--cap-micro-usd",
}

// flagsErr restates the LLM judge's refused configuration by the flags
// that set it: "--max-tokens must be 1 to 8192; --timeout ...".
func flagsErr(err error) error {
	fields := continuity.ErrorFields(err)
	if len(fields) == 0 {
		return err
	}
	var parts []string
	for field, reason := range fields {
		name, ok := llmFlags[field]
		if !ok {
			name = field
		}
		parts = append(parts, name+" "+reason)
	}
	slices.Sort(parts)
	return errors.New("the llm judge's configuration is invalid: " + strings.Join(parts, "; "))
}
