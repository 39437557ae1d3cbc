"""A LlamaIndex agent browsing the bundled demo site with webrefs tools. Offline: no API key.

    python examples/llamaindex_agent.py

The scripted LLM plays the demo task's reference solution, reading refs from the snapshots it
is shown. To use a real model instead, see the commented lines at the bottom.
"""

import asyncio

from llama_index.core.agent.workflow import FunctionAgent
from webrefs import Browser
from webrefs.adapters.llamaindex import WebToolSpec
from webrefs.evals.baselines.llamaindex_scripted import ScriptedLLM
from webrefs.evals.demo import demo_site, load_demo_task


async def main() -> None:
    task = load_demo_task()
    with demo_site() as url:
        browser = await Browser.alaunch()
        await browser.anew_tab(url + task.start_url)
        spec = WebToolSpec(browser=browser, max_tokens=3000)
        agent = FunctionAgent(tools=spec.to_tool_list(), llm=ScriptedLLM(task),
                              system_prompt=await spec.asystem_prompt(page_state=False))
        output = await agent.run(user_msg=task.goal)
        for call in output.tool_calls:
            seen = " ".join(call.tool_output.content.split())[:80]
            print(f"tool: {call.tool_name}({call.tool_kwargs}) -> {seen}")
        print("answer:", output.response.content)
        await browser.aclose()


asyncio.run(main())

# With a real model (needs `pip install llama-index-llms-openai` and OPENAI_API_KEY):
#
#   from llama_index.llms.openai import OpenAI
#   llm = OpenAI(model="gpt-4.1-mini")
#
# and pass that `llm` to FunctionAgent above instead of the ScriptedLLM.
