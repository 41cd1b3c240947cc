import os,django;os.environ['DJANGO_SETTINGS_MODULE']='liamemory.settings.base';django.setup()
from django.contrib.auth import get_user_model
from django.db import connection
from conversations.services import thread_create, messages_append
from memories.retrieval import search_history, search_memories
from memories.models import Memory
U=get_user_model(); u,_=U.objects.get_or_create(username='smoke')
t=thread_create(owner=u)
msgs=["I shipped the parcel to Milano yesterday","The weather is nice","Le spedizioni sono arrivate ieri","My order number is A-7781", "Shipping costs were high last month"]
messages_append(thread=t, items=[{"role":"user","content":[{"type":"text","text":x}]} for x in msgs])
from django.test.utils import CaptureQueriesContext
with CaptureQueriesContext(connection) as cq:
    for q in ["what did I say about shipping?","dove sono le spedizioni?","A-7781","the of", "x"*5000, "';DROP TABLE x;--  :* & | ! ( )"]:
        print(q[:30], [(h.sequence, round(h.score,4), h.signals) for h in search_history(thread=t, query=q)])
print(len(cq.captured_queries))
Memory.objects.create(user=u, content="User's order number is A-7781")
Memory.objects.create(user=u, content="Prefers shipping by express courier")
print([(h.memory.content,h.score) for h in search_memories(user=u, query="what is my order number?")])
print([(h.memory.content,h.score) for h in search_memories(user=u, query="spedizione?")])
