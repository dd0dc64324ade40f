import { describe, expect, it } from 'vitest';
import { useMockGateway } from './mock-gateway.ts';

/**
 * mock/echo calls the tools a prompt names: the user's own words, not the context a coding agent
 * puts in the same message. Qwen Code's and Claude Code's `<system-reminder>` blocks list their
 * tools by name; the mock called them all (Qwen's Skill tool starts a subagent, whose first
 * message says the same again): hundreds of requests a minute until the agent was killed.
 */
describe('mock/echo: the tools a prompt names', () => {
  const mock = useMockGateway();
  const tools = ['Skill', 'Task', 'get_weather'].map((name) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: { city: { type: 'string' } } } } }));
  const called = async (content: string): Promise<string[]> => {
    const res = await mock.post('/v1/chat/completions', { model: 'mock/echo', tools, messages: [{ role: 'user', content }] });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: Array<{ message: { tool_calls?: Array<{ function: { name: string } }> } }> };
    return (body.choices[0].message.tool_calls ?? []).map((c) => c.function.name);
  };

  it('calls a tool the user names, as a whole word, in any case', async () => {
    expect(await called('What is the weather in Paris? Use get_weather.')).toEqual(['get_weather']);
    expect(await called('please run the skill tool, then task')).toEqual(['Skill', 'Task']);
  });

  it('does not call a tool named only inside an agent\'s <system-reminder> or environment block, or inside another word', async () => {
    const reminder = '<system-reminder>\nThe following skills are available for use with the Skill tool: ... Use the Task tool to start a subagent.\n</system-reminder>';
    expect(await called(`${reminder}\nsay hi`)).toEqual([]);
    expect(await called(`<environment_context>\n  <cwd>/work</cwd> Skill Task\n</environment_context>\nsay hi`)).toEqual([]);
    expect(await called('Skills and tasks are nouns; get_weathers is not a tool')).toEqual([]);
    expect(await called(`${reminder}\nnow call get_weather`)).toEqual(['get_weather']);
  });
});
