"""More hand-written atoms of the v3 reader's training set: the second round of issue 39.

The first round (:mod:`~benchmarks.persuasion.reader_v3_atoms_pitch`, :mod:`~benchmarks.persuasion.reader_v3_atoms_other`)
left two gaps that the retired evaluation set showed: hostile lines in constructions no frame holds (unlisted insults,
invented compounds, contempt, sarcasm, threats and ultimatums) read as ``nothing`` or as a pitch, and genuine pitches in
terse, indirect or unusual wording read as ``nothing``. These blocks fill them with new phrasings, written for this
round in words of their own (no line copied from the retired set), plus hard negatives: teasing, self-mockery,
insult look-alikes and plain disagreement that are not hostile, and negated or nonsensical lines that stay ``nothing``.

Blocks of ``<concern> | <text>`` lines (``-``: no concern), or one text a line; composed by
:mod:`benchmarks.persuasion.reader_v3_corpus` (``more_lines``).
"""

from __future__ import annotations

#: pitches in new wordings: terse, long, questions that carry the principle, indirect and casual
PITCHES_MORE: dict[str, str] = {
    "reciprocity": """
- | I'll owe you one.
- | My treat.
- | Drinks are on me afterwards.
- | You scratch my back, I'll scratch yours.
- | Return the favour?
- | After all the lifts I've given you, one Saturday isn't much to ask, is it?
- | Who fed your cat for a fortnight last summer?
- | Remember who helped you revise for your driving theory?
cost | We'll pay for your parking if you come.
cost | Members get a free tote bag as our thanks.
cost | Every donor gets a little thank-you hamper.
- | I'll babysit on Friday if you come with me on Thursday.
- | I'll cook dinner all week if you book it.
- | Help me at the stall and the next round of coffees is mine.
- | I helped you paint the nursery; help me paint the scout hut.
- | Come along and I'll teach you to bake that bread you liked.
- | I'll cover your half of the petrol.
cost | They're giving away a free sample pack to everyone who tries it.
- | You can have my season ticket for a match if you give it a go.
- | I went to your boring work party, so you can come to my quiz night.
- | I did your tax return for you in April, just saying.
- | Think of it as me cashing in that favour.
- | Consider us even if you come.
- | I've always been there when you needed a hand; now I need one.
- | Who drove you to A and E at two in the morning?
- | We gave you the first month free, so why not stay on?
- | I'll swap you a Sunday lie-in for a Saturday run.
- | Sign the petition and I'll sign your sponsorship form.
- | Fair's fair, I did the washing-up all week.
- | gimme a hand with this and ill sort your bike out, promise
- | You owe me a favour, remember the flat move?
- | Quid pro quo: you come to the class, I walk the dog all week.
- | I lent you my tent for Glastonbury, so lend me your Saturday.
- | I'll return the kindness any time you like.
- | Our thanks for joining: a year's free entry to the museum.
- | In exchange, I'll proofread your dissertation.
- | The food bank gave your mum a hand last winter; they could use yours now.
- | I'd do the same for you in a heartbeat, and I have done.
""",
    "scarcity": """
timing | Nearly sold out.
timing | Selling fast.
timing | Ends at midnight.
timing | Two left.
timing | Final call.
timing | Now or never.
- | Only a dozen were ever made.
- | Once it's gone, it's gone for good.
timing | The sale stops on Sunday, so don't wait.
timing | Seats are disappearing by the hour.
timing | The waiting list closes once it hits fifty names.
timing | There's one slot left on Tuesday and it won't last.
- | Such a rare find, you hardly ever see them.
- | They discontinued the model, so these are the last ones anywhere.
timing | Spring is the only time they run the beginners' group.
timing | By Friday the cheaper tickets will be gone.
timing | Did you hear there are only four places left on the retreat?
timing | Isn't it a shame to miss the last course before they scrap it?
- | Hen's teeth, these are.
timing | Grab one while you still can.
timing | Stock is running low and there's no restock planned.
timing | It's a one-night-only show.
timing | The deal's gone tomorrow.
timing | The final few pairs are on the shelf now.
- | Limited edition, numbered, never to be reprinted.
timing | Only the first twenty sign-ups get a place.
timing | The volunteer rota fills in a day, every year.
timing | Doors shut at nine and they don't let latecomers in.
timing | hurry, almost none left!!
timing | This price won't be around much longer.
timing | They only open enrolment twice a year, and this is one of them.
timing | The ballot closes at noon, so get your name down.
- | There are far fewer places than people who want them.
timing | Once this batch is sold there won't be another till next year.
- | A chance like this doesn't come round twice.
timing | It's the last season they're running it.
""",
    "consensus": """
- | Everybody's doing it.
- | All the rage.
- | A crowd favourite.
- | Thousands have already signed.
- | Hugely popular round here.
- | Most people on your course have booked already.
- | Nine out of ten users would recommend it.
- | The whole choir's going, every last one.
- | Three hundred people turned up last year.
- | Nearly every parent at the school gate has joined.
- | It's the most downloaded app of its kind.
- | Your mates from football are all in.
- | Didn't you see that half the street has solar panels now?
- | Isn't everyone in your year doing the charity walk?
- | Over a million people use it every week.
- | The reviews are glowing, hundreds of them.
- | Your sister, your cousins and both your neighbours have had theirs.
- | It's what most people your age are choosing now.
- | Most of the team voted for it.
- | Loads of folks from work go every Thursday.
- | It's the town's best-selling bike this year.
- | People keep telling me how much they love it.
- | The class is packed every single week.
- | Every other household on the estate recycles now.
- | Practically all our friends have switched.
- | Top-rated by the people who bought it.
- | literally everyone at uni is doing it
- | Most commuters on your line already use the card.
- | Other parents say their kids loved the club.
- | More and more people are signing up every month.
- | The majority of residents backed the scheme.
- | Just about the whole village turned out for the clean-up.
- | All the regulars swear by the early session.
- | Join the thousands who already give monthly.
- | The group chat is full of people who've done it.
- | Most new starters pick this option.
""",
    "authority": """
- | Doctor's orders.
- | Expert-approved.
- | Clinically tested.
- | Dentists recommend it.
- | Backed by the science.
- | My GP swears by it.
- | The NHS advises everyone over fifty to have it.
- | A nutritionist wrote the meal plan.
- | The head teacher herself recommended the club.
- | Our financial adviser says it's the sensible choice.
- | The fire brigade says every home should have one.
- | A Michelin-starred chef runs the class.
- | It was designed by sports scientists at Loughborough.
- | Researchers at Oxford found it halves the risk.
- | The consultant told me it's the best thing you can do.
- | The British Dental Association endorses it.
- | My professor, who literally wrote the textbook, says take the course.
- | According to the safety inspector, it's essential.
- | The pharmacist told me it's the one to get.
- | Haven't the doctors been saying this for years?
- | Didn't your cardiologist tell you to walk more?
- | Trust the vet, she knows what she's talking about.
- | It's the programme the Olympic team trains on.
- | The study in the Lancet backs it up.
- | Accredited by the Royal College.
- | The official guidance says get checked every year.
- | An architect looked at the plans and said it's sound.
- | My accountant, thirty years in the job, says do it now.
- | Approved by the Vegan Society.
- | The coach who trained the county team runs it.
- | The world health body recommends it for everyone.
- | Take it from a physio: stretch first.
- | Speaking as a qualified electrician, you need this fixed.
- | the dentist literally said you need it
- | Engineers rated it the safest on the market.
- | The guidance from the World Health Organisation is clear.
- | Specialists in the field all point the same way.
""",
    "commitment": """
- | You promised.
- | A deal's a deal.
- | Your words, not mine.
- | You said you would.
- | You've started, so finish.
- | You already paid the deposit.
- | You're halfway there already.
- | You signed up in January, remember?
- | Didn't you tell me you wanted to learn Spanish?
- | Weren't you the one who said we should all vote?
- | You've always said health comes first.
- | You told the whole table you'd run the marathon.
- | You've done two sessions; don't stop now.
- | You put your name on the list yourself.
- | Last week you said yes, so I'm holding you to it.
- | You care about the planet, you've told me so a hundred times.
- | You're someone who keeps their word.
- | You made a new year's resolution about exactly this.
- | You've already filled in half the form.
- | You wrote it on the calendar.
- | Isn't this what you said you'd do once the kids started school?
- | You pledged twenty quid at the meeting.
- | Keep the streak going, you're on day twelve.
- | You're a volunteer at heart, you always have been.
- | Stay true to what you told us at dinner.
- | You agreed to it on the phone yesterday.
- | It was your idea in the first place.
- | you said ud come, so come
- | You've been a member for ten years; don't break the habit now.
- | You told your daughter you'd be there.
- | You believe in fairness, so sign it.
- | As someone who's always backed the local shops, you'd want this.
- | You booked the first lesson, so go to the second.
- | You gave me your word on Friday.
- | You've said for ages you wanted to get fitter.
""",
    "liking": """
- | You're a gem.
- | Love you, mate.
- | You're the best.
- | You light up every room.
- | We're two peas in a pod.
- | You're my favourite person to do things with.
- | You've got such a kind heart.
- | Honestly, you're brilliant at this sort of thing.
- | I'd love to have you there, you always make it fun.
- | You're so easy to talk to, people would adore you there.
- | Us early risers have to stick together.
- | Fellow Northerner, you'll feel at home.
- | We're both bookworms, so the library club is made for us.
- | You've got a gift with kids.
- | You're the funniest person I know.
- | Don't you know how much I like spending time with you?
- | Wouldn't it be lovely to do it together, just us two?
- | You're one of the good ones.
- | What would I do without you?
- | You're such a natural with people.
- | Everything's more fun when you're around.
- | I've always admired how generous you are.
- | Someone as thoughtful as you would be perfect for it.
- | You're the kindest neighbour anyone could ask for.
- | You and me, same team, always.
- | As fellow cyclists, we should do the charity ride together.
- | I really value our friendship.
- | ur the best, come with me?
- | You're a superstar, honestly.
- | You've got great taste, so you'll love it.
- | I'd feel so much braver with you beside me.
- | You're so talented, it'd be a crime not to show it.
- | Your cooking is the best I've ever had; the bake sale needs you.
- | You always know just what to say.
- | I trust you more than anyone.
- | We've been friends for twenty years, you and I.
- | Being with you always cheers me up.
""",
}

#: no reason: small talk, questions, plain requests, negated or denied principles, nonsense with cue words
NOTHING_MORE = """
- | How was your weekend?
- | Did you see the match last night?
- | Pass the salt, would you?
- | I'm off to the shops, need anything?
- | What do you fancy for tea?
- | Just come, please.
- | Will you do it?
- | Go on, sign up.
- | Please think about it.
- | Can we talk about the gym thing?
- | I'd like you to come.
- | What do you reckon?
- | Let me know by Friday.
- | Here's the link.
- | The form is on the table.
- | It starts at seven.
- | The gym is on the corner of Mill Road.
- | It's a yoga class.
- | You'd need trainers and a water bottle.
- | Have you had lunch?
- | The kettle's just boiled.
- | Sorry I'm late.
- | Any plans for the summer?
- | I'm not sure it's for everyone.
- | Think it over and tell me.
- | Hmm.
- | Okay then.
- | Fine, suit yourself.
- | Whatever you decide is fine by me.
- | No pressure at all.
- | I'm not going to pretend it's popular.
- | Honestly, hardly anyone goes.
- | No expert has ever backed it.
- | I can't say the doctors agree.
- | It isn't rare at all; they have loads.
- | There's no rush, it runs all year.
- | I don't owe you anything and you don't owe me.
- | You never promised anything, so don't feel bound.
- | Don't do it just to please me.
- | It's not about what your friends think.
- | Forget the experts for a second.
- | I'm not flattering you to get a yes.
- | No one's saying you agreed to it.
- | Whether it's popular doesn't matter.
- | Ignore the reviews; make up your own mind.
- | It's not a limited offer or anything.
- | Nobody's keeping score.
- | The scientist jumped over the purple refund.
- | Everyone spoon the doctor of Tuesdays.
- | Limited bicycle expert sings yesterday.
- | Promised window the favour upside of blue.
- | Frindle experts glarp the last chance.
- | Popular popular popular the the.
- | Doctors recommend recommend.
- | Scarce wibble friends lorp.
- | Zonk the everyone bleem.
- | Deadline marmalade, authority of socks.
- | Lovely flumph you promise zib.
- | Mentor gravel reciprocal moon.
- | What time does it finish?
- | Is there parking?
- | Who else is going?
- | How much is it?
- | Do I need to bring anything?
- | Does it hurt?
- | How long does it take?
cost | How much does it cost, roughly?
timing | When does it start?
effort | Is it a lot of work?
- | I disagree, but that's fine.
- | I think you're wrong about this, honestly.
- | We see it differently, and that's okay.
- | I'm a bit disappointed, to be honest.
- | That's not quite right; the class is on Tuesdays.
- | I'd rather you didn't, actually.
"""

#: several principles in one line
STUFFED_MORE = """
- | Everyone's going and there are only ten tickets.
- | The doctor recommends it, and you did promise.
- | I covered for you last week, and besides, the whole office is going.
- | You're lovely and the offer ends tonight.
- | Experts back it and millions use it.
- | You promised me, and I did help you move.
- | It's popular, it's proven and it's nearly gone.
- | Trusted by doctors, loved by millions.
- | Your friends are all in and you told me you wanted to be.
- | A top physio designed it, and you're just the sort of lovely person it suits.
- | Last few places, and the dentist says you need it.
- | I'll buy lunch, and everybody else has signed anyway.
- | You always keep your word, and the deadline's Friday.
- | You're a star; plus the experts say it works.
- | Bestseller, award-winning, limited stock.
- | Half the gym does it, the coach rates it, and you said you'd try.
- | As your friend who drove you home, and as a nurse, I'm begging you.
- | You said you cared about this, and only five spots remain.
- | We're mates, and everyone else on the team has done it.
- | Free gift for joining, and it closes at midnight.
- | Scientists agree, your neighbours agree, and I'll even pay your ticket.
- | you promised AND its the last day AND everyones going lol
"""

#: more pitches, written after a first look at how the second round read: indirect wordings of each principle
PITCHES_INDIRECT: dict[str, str] = {
    "reciprocity": """
- | Lunch is on me if you come along.
- | I'll get the tickets, you just turn up.
- | You can pay me back by coming to the fun run.
- | Let me buy you a coffee for your trouble.
cost | We'll cover the entry fee as a thank-you.
- | I'll take your bins out all month if you book the appointment.
- | You gave up your Saturday for my move; I'd like to give up mine for your project.
- | Bring the forms round and I'll cook you dinner.
cost | Everyone who donates gets a free pin badge from us.
- | Since you fixed my laptop, the least I can do is drive you there.
- | I'll chip in half if you sign up.
- | Take my spare ticket, and come to the talk with me in return.
""",
    "scarcity": """
timing | The boat only sails when the tide's right, and that's this Thursday.
timing | After this month the old price is history.
- | Few people ever get a chance like this.
timing | The organisers say it's the last time they're running it.
timing | If you wait, someone else will take your place.
timing | Rooms with a sea view get snapped up in minutes.
- | It's the only one of its kind in the county.
timing | Registrations are nearly full.
timing | Book soon, the dates fill up.
timing | They're pulling it from the menu next week.
- | Original copies are almost impossible to find now.
timing | The free places go to whoever asks first.
""",
    "consensus": """
- | Most people who try it keep going.
- | Your whole street's been to the new surgery.
- | The class has a waiting list because everyone loves it.
- | Loads of people your age have switched already.
- | It got rave reviews from the other parents.
- | I've not met anyone who regretted it.
- | The office has practically emptied for the charity run.
- | People queue for ages to get in.
- | Everyone I've asked says it's worth it.
- | Four thousand five-star ratings can't all be wrong.
- | The other volunteers said it was the best day of their year.
- | Most of the families on our road already give monthly.
""",
    "authority": """
- | The course is taught by a former Olympic coach.
- | A top cardiologist wrote the programme.
- | The guide is a qualified mountain leader.
- | It has the Fairtrade stamp and the Soil Association's approval.
- | The headmaster signed off on it personally.
- | My optician was adamant about it.
- | The manual from the manufacturer says service it every year.
- | A panel of judges named it the best in the region.
- | The midwife said it's the safest option.
- | Our IT security team says everyone has to update.
- | The recipe comes from a celebrated pastry chef.
- | The fitness instructor, who's trained athletes, says start slow.
""",
    "commitment": """
- | You've already done the hard part by registering.
- | Last year you told everyone you'd do it this year.
- | You're the one who wanted this, remember.
- | You always say you want to give back.
- | You've been saving up for exactly this.
- | You ticked the box saying you'd volunteer.
- | You already bought the kit.
- | Didn't you say this was your year?
- | You care about your health, you've said it often enough.
- | You've come this far, don't throw it away.
- | You put your hand up at the meeting.
- | You're the kind of person who finishes what they start.
""",
    "liking": """
- | You'd smash it, you're so good with people.
- | With your eye for detail you'd nail it.
- | Someone as quick as you would pick it up in a day.
- | You're a natural, honestly.
- | I always feel better after seeing you.
- | It's you and me against the world.
- | We're both night owls, so the late class suits us.
- | You've got the best laugh; the choir would love you.
- | A people person like you would shine there.
- | I can't imagine doing it with anyone else.
- | You're my rock.
- | With your brains, you'd ace the course.
""",
}

#: more nonsense that looks like English and carries cue words (``nothing``)
NONSENSE_MORE = """
The doctor purple sideways the furniture of last chance.
Experts banana gravel recommend.
Everyone spoons the seventh window of popular.
Limited carpet remember the expert of Thursday.
Favour the kettle under promise of the moon.
Scientists of soup only three left the staircase.
You promised the cloud a lovely ladder friendly.
Thousands orbit the deadline marmalade sideways.
Trust the dentist cheese tomorrow of elbow.
Rare blue friends sing the expert of doors.
The popular trumpet owes the spoon a favour.
Only the last toaster recommends everyone yesterday.
"""

# the hostile blocks of this round live in their own module; the corpus reads every block from here
from benchmarks.persuasion.reader_v3_atoms_hostile_more import (  # noqa: E402, F401
    HOSTILE_MORE,
    HOSTILE_FRAMES_MORE,
    THREAT_TAILS,
    INSULT_NOUNS_MORE,
    INSULT_ADJECTIVES_MORE,
    NOT_HOSTILE_MORE,
    NOT_HOSTILE_SELF,
    NOT_HOSTILE_YOU,
)
