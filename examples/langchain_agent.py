"""A LangChain agent browsing the bundled demo site with webrefs tools. Offline: no API key.

    python examples/langchain_agent.py

The scripted model plays the demo task's reference solution, reading refs from the snapshots
it is shown. To use a real model instead, see the commented lines at the bottom.
"""

from langchain.agents import create_agent
from webrefs import Browser
from webrefs.adapters.langchain import WebToolkit
from webrefs.evals.baselines.langchain_scripted import ScriptedChatModel
from webrefs.evals.demo import demo_site, load_demo_task

task = load_demo_task()
with demo_site() as url, Browser.launch() as browser:
    browser.new_tab(url + task.start_url)
    toolkit = WebToolkit(browser=browser, max_tokens=3000)
    model = ScriptedChatModel(task=task)
    agent = create_agent(model, toolkit.get_tools(), middleware=[toolkit.live_prompt()])
    result = agent.invoke({"messages": [("user", task.goal)]})
    for message in result["messages"][1:]:
        calls = [f"{c['name']}({c['args']})" for c in getattr(message, "tool_calls", [])]
        text = " ".join(str(message.content).split())[:100]
        print(f"{message.type:>5}: {', '.join(calls) or text}")
    print("answer:", result["messages"][-1].content)

# With a real model (needs `pip install langchain-openai` and OPENAI_API_KEY):
#
#   from langchain.chat_models import init_chat_model
#   model = init_chat_model("openai:gpt-4.1-mini")
#
# and pass that `model` to create_agent above instead of the ScriptedChatModel.
